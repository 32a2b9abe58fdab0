#!/bin/sh
export NCCL_IB_HCA=mlx5_0:1
NCCL_DEBUG=INFO srun python train.py
export X=${Y:-3}
