// messages.h — every line opframe itself writes to stderr (warnings, notes,
// verbose output, components' logs) goes through say_line, so that the
// rules of where and how often a line is said live in one place.
//
// In an MPI job each rank runs its own opframe, and each would repeat the same
// warning: a job of 256 ranks printed a misspelt parameter 256 times, without
// saying which rank spoke. Inside a job (the launcher's rank variables set)
// a line is therefore prefixed with the host and the rank, and warnings and
// notes are said by the first rank of each node only (its node-local rank
// 0): what opframe warns about (parameters, component files, the hardware)
// is a property of a node, so a node's first rank speaks for the node. At
// op_base_verbose >= 1 every rank speaks.
#pragma once

#include <string>

namespace opf {

enum class Say { Warning, Note, Verbose };

// One line "opframe: warning: <text>" / "opframe: <text>" (with
// "opframe[host:rank R]: ..." inside a job), written with one write(2).
// Verbose lines are always written (the caller checked the level); warnings
// and notes are written by the speaking rank only.
void say_line(Say kind, const std::string &text);

// "host:rank R" inside an MPI job, else "".
const std::string &job_place();

} // namespace opf
