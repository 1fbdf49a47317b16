// file_trust.cpp — see file_trust.h.
#include "framework/file_trust.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

namespace opf {

namespace {

// The user database's entry for `uid`, or false (the _r calls: another
// thread of the program may be using getpwuid's static buffer).
bool user_entry(uid_t uid, passwd &entry, std::vector<char> &buffer)
{
    buffer.assign(16384, '\0');
    passwd *found = nullptr;
    return getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found;
}

bool group_entry(gid_t gid, group &entry, std::vector<char> &buffer)
{
    buffer.assign(65536, '\0');   // a group lists its members
    group *found = nullptr;
    return getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found;
}

std::string user_text(uid_t uid)
{
    passwd pw;
    std::vector<char> buffer;
    const std::string id = "uid " + std::to_string(uid);
    return user_entry(uid, pw, buffer) ? std::string("user ") + pw.pw_name + " (" + id + ")" : id;
}

std::string group_text(gid_t gid)
{
    group gr;
    std::vector<char> buffer;
    return group_entry(gid, gr, buffer) ? std::string("group ") + gr.gr_name : "a group";
}

// Whether group `gid` is the private group of user `uid`: named as the user,
// the user's primary group, and listing no other member. Only then does its
// write bit give no one else the file (a system with user private groups
// and umask 002 makes every file of a build tree group-writable so).
bool private_group_of(uid_t uid, gid_t gid)
{
    passwd pw;
    group gr;
    std::vector<char> user_buffer, group_buffer;
    if (!user_entry(uid, pw, user_buffer) || pw.pw_gid != gid || !group_entry(gid, gr, group_buffer)) return false;
    if (std::strcmp(gr.gr_name, pw.pw_name) != 0) return false;
    for (char **member = gr.gr_mem; member && *member; ++member)
        if (std::strcmp(*member, pw.pw_name) != 0) return false;
    return true;
}

std::string mode_text(mode_t mode)
{
    char text[16];
    std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
    return text;
}

std::string directory_of(const std::string &real_path)
{
    const std::size_t slash = real_path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : real_path.substr(0, slash);
}

bool resolve(const std::string &path, std::string &out)
{
    char real[PATH_MAX];
    if (!realpath(path.c_str(), real)) return false;
    out = real;
    return true;
}

} // namespace

std::string untrusted_because(const struct stat &st, bool directory, DirectoryUse use)
{
    const uid_t me = geteuid();
    if (st.st_uid != 0 && st.st_uid != me)
        return "owned by " + user_text(st.st_uid) + ", neither root nor this process's user";
    const std::string mode = mode_text(st.st_mode);
    if (st.st_mode & S_IWOTH) {
        if (!directory || !(st.st_mode & S_ISVTX)) return "writable by every user (mode " + mode + ")";
        if (use == DirectoryUse::Searched)
            return "writable by every user (mode " + mode + ": the sticky bit keeps others from replacing files "
                   "there, not from adding them)";
    }
    if ((st.st_mode & S_IWGRP) && !private_group_of(st.st_uid, st.st_gid))
        return "writable by " + group_text(st.st_gid) + " (gid " + std::to_string(st.st_gid) + ", mode " + mode + ")";
    return "";
}

TrustCheck check_file_trust(const std::string &path, DirectoryUse dir_use)
{
    TrustCheck out;
    struct stat st;
    if (!resolve(path, out.real_path) || stat(out.real_path.c_str(), &st) != 0) {
        out.real_path.clear();
        return out;
    }
    if (std::string why = untrusted_because(st, S_ISDIR(st.st_mode), dir_use); !why.empty()) {
        out.problem = (out.real_path == path ? "it is " : "its target " + out.real_path + " is ") + why;
        return out;
    }
    const std::string dir = directory_of(out.real_path);
    if (stat(dir.c_str(), &st) != 0) {
        out.problem = "its directory " + dir + " cannot be examined (" + std::strerror(errno) + ")";
        return out;
    }
    if (std::string why = untrusted_because(st, true, dir_use); !why.empty())
        out.problem = "its directory " + dir + " is " + why;
    return out;
}

TrustCheck check_directory_trust(const std::string &dir, DirectoryUse use)
{
    TrustCheck out;
    struct stat st;
    if (!resolve(dir, out.real_path) || stat(out.real_path.c_str(), &st) != 0) {
        out.real_path.clear();
        return out;
    }
    out.problem = untrusted_because(st, true, use);
    return out;
}

} // namespace opf
