#pragma once
// Sub-communicators: split(parent, color, key) with MPI_Comm_split and
// ncclCommSplit semantics. Every rank of the parent calls it (collective);
// ranks that pass the same color form one group, ordered by key, ties by
// their rank in the parent. color kNoColor (-1, NCCL_SPLIT_NOCOLOR) joins
// no group and gets nullptr. Any other negative color is std::invalid_argument
// (thrown before any communication, so the others time out naming this rank).
//
// A sub-communicator borrows the parent's links and store: no connection is
// made (the parent is a full mesh), its traffic runs over the parent's pairs
// and so on the parent's plane and transport (unless own_links, below).
// Consequences, as with ncclCommSplit on a shared context:
//   - the parent must outlive it;
//   - one thread drives the parent and all its sub-communicators, and ranks
//     issue collectives on them in the same order (a blocking collective on
//     one, then on another), never interleaved within a collective;
//   - a death reported to the parent aborts every sub-communicator too: a
//     blocked collective throws PeerDiedError naming the dead (parent) rank.
// Errors of a sub-communicator name ranks of the parent ("rank 5: allreduce
// in group tp#1 ...") so the message means the same thing in every group.
//
// The split itself exchanges (color, key) with one allgather on the parent:
// it throws what that allgather throws, within the parent's timeout.

#include <memory>
#include <string>

#include "stack/l3_comm/communicator.h"

namespace hn::stack::comm {

inline constexpr int kNoColor = -1;

// `name` labels the group in errors and store keys ("tp" gives "tp#<color>").
//
// own_links: the group's traffic on a plane of its own. The members connect
// a full mesh of TCP links made with these parameters (bound to the plane's
// address or NIC, with its connect budget), rendezvousing through the
// parent's store, instead of borrowing the parent's pairs. Every member of a
// group passes the same choice (links or none). Link setup throws what a
// communicator's construction throws (LinkError naming the peer, within the
// link budget). A death reported to the root still interrupts the group.
std::unique_ptr<Communicator> split(Communicator& parent, int color, int key,
                                    const std::string& name = "split",
                                    const LinkParams* own_links = nullptr);

}  // namespace hn::stack::comm
