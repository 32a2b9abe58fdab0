#!/bin/bash
###############################################################################
# Copyright (c) 2025, Advanced Micro Devices, Inc. All rights reserved.
#
# See LICENSE for license information.
###############################################################################
#
# System hook: enable AINIC environment settings.
#
# Trigger:
#   export USING_AINIC=1
#
# This replaces the old env file:
#   runner/helpers/envs/enable_ainic.sh
#
# Note: hooks must print "env.VAR=VALUE" to persist changes back to the caller.
###############################################################################

set -euo pipefail

if [[ "${USING_AINIC:-0}" != "1" ]]; then
    exit 0
fi

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC1091
source "${SCRIPT_DIR}/../envs/path_utils.sh"

ANP_HOME_DIR="${ANP_HOME_DIR:-/workspace/amd-anp}"
RCCL_HOME_DIR="${RCCL_HOME_DIR:-/workspace/rccl}"
MPI_HOME_DIR="${MPI_HOME_DIR:-/opt/ompi}"

# AINIC RoCE mode. ROCm 7.2.1+ builds ANP INTO RCCL (no separate librccl-anp.so);
# RCCL_AINIC_ROCE=1 enables that built-in ANP path. On older ROCm the external
# plugin is selected below instead. An explicitly-set NCCL_NET_PLUGIN always takes
# precedence (force-loads the named plugin) irrespective of RCCL_AINIC_ROCE.
RCCL_AINIC_ROCE="${RCCL_AINIC_ROCE:-1}"

# NCCL_NET_PLUGIN selection.
# With built-in ANP (RCCL_AINIC_ROCE=1) default to "none" so RCCL uses its built-in
# ANP transport instead of auto-loading an external plugin. Otherwise auto-detect the
# external ANP plugin (name varies by container: librccl-anp.so or librccl-net.so).
# An explicitly-set NCCL_NET_PLUGIN always wins in both cases.
if [ "${RCCL_AINIC_ROCE}" = "1" ]; then
    NCCL_NET_PLUGIN="${NCCL_NET_PLUGIN:-none}"
else
    if [ -z "${NCCL_NET_PLUGIN:-}" ]; then
        if [ -f "${ANP_HOME_DIR}/build/librccl-anp.so" ]; then
            NCCL_NET_PLUGIN="librccl-anp.so"
        elif [ -f "${ANP_HOME_DIR}/build/librccl-net.so" ]; then
            NCCL_NET_PLUGIN="librccl-net.so"
        else
            NCCL_NET_PLUGIN="librccl-anp.so"
        fi
    fi
fi
NCCL_IB_TC="${NCCL_IB_TC:-104}"
NCCL_IB_FIFO_TC="${NCCL_IB_FIFO_TC:-192}"
NCCL_IB_SL="${NCCL_IB_SL:-0}"
NCCL_IB_GID_INDEX="${NCCL_IB_GID_INDEX:-1}"
NCCL_IB_ROCE_VERSION_NUM="${NCCL_IB_ROCE_VERSION_NUM:-2}"
NCCL_MAX_P2P_CHANNELS="${NCCL_MAX_P2P_CHANNELS:-56}"
NET_OPTIONAL_RECV_COMPLETION="${NET_OPTIONAL_RECV_COMPLETION:-1}"
NCCL_IB_USE_INLINE="${NCCL_IB_USE_INLINE:-1}"
RCCL_GDR_FLUSH_GPU_MEM_NO_RELAXED_ORDERING="${RCCL_GDR_FLUSH_GPU_MEM_NO_RELAXED_ORDERING:-0}"
NCCL_GDR_FLUSH_DISABLE="${NCCL_GDR_FLUSH_DISABLE:-1}"
NCCL_DMABUF_ENABLE="${NCCL_DMABUF_ENABLE:-0}"
NCCL_IGNORE_CPU_AFFINITY="${NCCL_IGNORE_CPU_AFFINITY:-1}"
NCCL_IB_QPS_PER_CONNECTION="${NCCL_IB_QPS_PER_CONNECTION:-1}"

# Keep ROCm first, then append AINIC/RCCL/MPI paths without duplicates.
ensure_rocm_ld_library_path
path_append_unique LD_LIBRARY_PATH \
    /usr/lib/x86_64-linux-gnu \
    /usr/lib/x86_64-linux-gnu/libibverbs \
    "${RCCL_HOME_DIR}/build/release" \
    "${ANP_HOME_DIR}/build" \
    "${MPI_HOME_DIR}/install/lib"
LOG_INFO_RANK0 "Using AINIC"
LOG_INFO_RANK0 "RCCL_HOME_DIR: ${RCCL_HOME_DIR}"
LOG_INFO_RANK0 "ANP_HOME_DIR: ${ANP_HOME_DIR}"
LOG_INFO_RANK0 "MPI_HOME_DIR: ${MPI_HOME_DIR}"

echo "env.ANP_HOME_DIR=${ANP_HOME_DIR}"
echo "env.RCCL_HOME_DIR=${RCCL_HOME_DIR}"
echo "env.MPI_HOME_DIR=${MPI_HOME_DIR}"
echo "env.NCCL_NET_PLUGIN=${NCCL_NET_PLUGIN}"
echo "env.RCCL_AINIC_ROCE=${RCCL_AINIC_ROCE}"
echo "env.NCCL_IB_TC=${NCCL_IB_TC}"
echo "env.NCCL_IB_FIFO_TC=${NCCL_IB_FIFO_TC}"
echo "env.NCCL_IB_GID_INDEX=${NCCL_IB_GID_INDEX}"
echo "env.NCCL_IB_ROCE_VERSION_NUM=${NCCL_IB_ROCE_VERSION_NUM}"
echo "env.NCCL_MAX_P2P_CHANNELS=${NCCL_MAX_P2P_CHANNELS}"
echo "env.NCCL_IB_SL=${NCCL_IB_SL}"
echo "env.NET_OPTIONAL_RECV_COMPLETION=${NET_OPTIONAL_RECV_COMPLETION}"
echo "env.NCCL_IB_USE_INLINE=${NCCL_IB_USE_INLINE}"
echo "env.RCCL_GDR_FLUSH_GPU_MEM_NO_RELAXED_ORDERING=${RCCL_GDR_FLUSH_GPU_MEM_NO_RELAXED_ORDERING}"
echo "env.NCCL_GDR_FLUSH_DISABLE=${NCCL_GDR_FLUSH_DISABLE}"
echo "env.NCCL_DMABUF_ENABLE=${NCCL_DMABUF_ENABLE}"
echo "env.NCCL_IGNORE_CPU_AFFINITY=${NCCL_IGNORE_CPU_AFFINITY}"
echo "env.NCCL_IB_QPS_PER_CONNECTION=${NCCL_IB_QPS_PER_CONNECTION}"
echo "env.LD_LIBRARY_PATH=${LD_LIBRARY_PATH}"
