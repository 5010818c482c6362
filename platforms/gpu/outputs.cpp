#include "gmmu/gpu/outputs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace gmmu {

namespace fs = std::filesystem;

static std::string &output_folder_ref()
{
    static std::string dir = ".";
    return dir;
}
void set_output_folder(const std::string &dir) { output_folder_ref() = dir.empty() ? "." : dir; }
const std::string &output_folder() { return output_folder_ref(); }

const std::vector<std::string> &run_output_names()
{
    static const std::vector<std::string> names = {
        "stats.json",    "config.json",    "run.json",       "tlb_probe.json",
        "tlb_probe.csv", "tlb_share.json", "hash_group.json", "kernel.json",
    };
    return names;
}

const char *const out_lock_name = ".gmmu-sim.lock";

// The lock's descriptor stays open (and the lock held) until the process ends.
static std::string lock_out_dir(const std::string &dir)
{
    const std::string path = dir + "/" + out_lock_name;
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return "cannot open the lock file " + path + ": " + std::strerror(errno);
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return "the lock file " + path + " is not a regular file";
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int e = errno;
        char buf[32] = {};
        const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        close(fd);
        if (e == EWOULDBLOCK) {
            const long pid = n > 0 ? std::strtol(buf, nullptr, 10) : 0;
            return "another gmmu-sim run" + (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string()) +
                   " is writing to this folder";
        }
        return "cannot lock " + path + ": " + std::strerror(e);
    }
    const std::string me = std::to_string(getpid()) + "\n";
    if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) != ssize_t(me.size())) {
        // the pid is only for the message of a refused run
    }
    return "";
}

std::string prepare_out_dir(const std::string &dir)
{
    std::error_code ec;
    if (dir.empty())
        return "empty folder name";
    fs::create_directories(dir, ec);
    if (ec)
        return "cannot create folder: " + ec.message();
    if (!fs::is_directory(dir, ec))
        return "not a folder";
    const std::string probe = dir + "/.gmmu-write-probe-" + std::to_string(getpid());
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return std::string("not writable: ") + std::strerror(errno);
    const bool wrote = write(fd, "x", 1) == 1;
    close(fd);
    unlink(probe.c_str());
    if (!wrote)
        return std::string("not writable: ") + std::strerror(errno);
    if (std::string why = lock_out_dir(dir); !why.empty())
        return why;
    // Every output a run (of any workload) writes: an old one would look like
    // this run's. Only regular files are removed; anything else (a symlink, a
    // device, a FIFO a user put there) is left and written in place.
    for (const std::string &f : run_output_names()) {
        const fs::file_status s = fs::symlink_status(dir + "/" + f, ec);
        if (ec || s.type() != fs::file_type::regular)
            continue;
        fs::remove(dir + "/" + f, ec);
        if (ec)
            return "cannot remove the previous " + f + ": " + ec.message();
    }
    return "";
}

static std::string write_all(int fd, const std::string &path, const std::string &text)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return path + ": " + std::strerror(errno);
        }
        done += size_t(n);
    }
    return "";
}

// A path that exists and is not a regular file (a device, a FIFO, a socket):
// written in place, never replaced.
static std::string write_in_place(const std::string &path, const std::string &shown,
                                  const std::string &text)
{
    // A FIFO with no reader would block the open: refuse it instead.
    const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return shown + ": " + (errno == ENXIO ? std::string("a FIFO with no reader") : std::strerror(errno));
    const int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    std::string e = write_all(fd, shown, text);
    if (close(fd) != 0 && e.empty())
        e = shown + ": " + std::strerror(errno);
    return e;
}

std::string write_atomic(const std::string &path, const std::string &text)
{
    // Follow symlinks to the file they name (the link itself stays); rename
    // only ever replaces a regular file.
    std::string target = path;
    for (int hops = 0;; hops++) {
        struct stat ls {};
        if (lstat(target.c_str(), &ls) != 0 || !S_ISLNK(ls.st_mode))
            break;
        if (hops == 40)
            return path + ": too many levels of symbolic links";
        std::error_code ec;
        const fs::path to = fs::read_symlink(target, ec);
        if (ec)
            return path + ": " + ec.message();
        target = (to.is_absolute() ? to : fs::path(target).parent_path() / to).string();
    }
    struct stat st {};
    if (stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return path + ": is a folder";
        if (!S_ISREG(st.st_mode))
            return write_in_place(target, path, text);
    }
    const std::string tmp = target + ".tmp." + std::to_string(getpid());
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return path + ": " + std::strerror(errno);
    if (std::string e = write_all(fd, path, text); !e.empty()) {
        close(fd);
        unlink(tmp.c_str());
        return e;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        const std::string e = path + ": " + std::strerror(errno);
        unlink(tmp.c_str());
        return e;
    }
    if (std::rename(tmp.c_str(), target.c_str()) != 0) {
        const std::string e = path + ": " + std::strerror(errno);
        unlink(tmp.c_str());
        return e;
    }
    return "";
}

std::string write_output(const std::string &dir, const std::string &name, const std::string &text)
{
    const auto &names = run_output_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        return dir + "/" + name + ": not a declared run output (outputs.cpp run_output_names)";
    return write_atomic(dir + "/" + name, text);
}

nlohmann::json run_record(const std::string &status, int exit_status, const std::string &detail)
{
    return {{"completed", status == "completed"},
            {"status", status},
            {"exit_status", exit_status},
            {"detail", detail}};
}

} // namespace gmmu
