// file_trust.h — whether a user other than root and this process's own user
// could have changed a file opframe takes code or settings from.
//
// A component is code that runs in every process that loads opframe, MPI
// ranks included, from the moment the loader opens it (a library's
// constructors run inside dlopen). So the component files and the
// directories they come from, and the parameter and tuning files (which
// name the component path and steer the selection), are used only when no
// one but root and the process's effective user can change them: owned by
// one of those two, and writable by neither a group of other users nor
// every user (mca_component_trust=any switches the rule off). Pure file
// inspection, like component_files.h: the callers decide and say.
#pragma once

#include <string>

#include <sys/stat.h>

namespace opf {

// How a directory's sticky bit counts.
enum class DirectoryUse {
    // Every file in it is taken (a component directory): the sticky bit
    // keeps others from replacing or renaming our files, not from adding
    // their own, and a file they add is what the loader would open. Their
    // own files would be refused for their owner, but not a link to any
    // library root owns (its constructors would run): unsafe either way.
    Searched,
    // One file of a known name is taken (a parameter or tuning file): the
    // sticky bit keeps others from replacing or renaming it, and a file of
    // that name they created first is theirs and refused for its owner, so
    // a world-writable sticky directory (/tmp) is safe for it.
    FixedName,
};

// Why the file or directory `st` describes could be changed by a user other
// than root and the effective user, in words ("writable by every user (mode
// 0666)", "writable by group staff (gid 50, mode 0664)", "owned by user bob
// (uid 1001), neither root nor this process's user"); "" when it could not.
// `directory`: `st` is a directory taken as `use` says. A group-writable file
// whose group is its owner's own private group (named as the owner, the
// owner's primary group, no other member: the user private groups of a
// umask 002 system) lets no one else write it and passes.
std::string untrusted_because(const struct stat &st, bool directory, DirectoryUse use);

// Resolves `path` (realpath: every symbolic link followed) and checks the
// file it names and that file's own directory (FixedName or Searched as
// `dir_use`). `real_path` gets the resolved path ("" when it does not
// resolve: no problem is reported then, the callers' own checks say why the
// file is unusable). The problem names which is at fault: "it is ...", "its
// target /real/path is ...", "its directory /dir is ...".
struct TrustCheck {
    std::string real_path, problem;
};
TrustCheck check_file_trust(const std::string &path, DirectoryUse dir_use);

// The same for a directory itself: `real_path` the directory `dir`
// resolves to ("" when it does not: no problem then, the callers say that),
// `problem` what untrusted_because says of it, without a subject.
TrustCheck check_directory_trust(const std::string &dir, DirectoryUse use);

} // namespace opf
