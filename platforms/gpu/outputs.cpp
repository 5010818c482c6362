#include "gmmu/gpu/outputs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
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
    for (const char *f : {"stats.json", "config.json", "run.json"}) {
        fs::remove(dir + "/" + f, ec);
        if (ec)
            return std::string("cannot remove the previous ") + f + ": " + ec.message();
    }
    return "";
}

std::string write_atomic(const std::string &path, const std::string &text)
{
    const std::string tmp = path + ".tmp." + std::to_string(getpid());
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return path + ": " + std::strerror(errno);
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const std::string e = path + ": " + std::strerror(errno);
            close(fd);
            unlink(tmp.c_str());
            return e;
        }
        done += size_t(n);
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        const std::string e = path + ": " + std::strerror(errno);
        unlink(tmp.c_str());
        return e;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string e = path + ": " + std::strerror(errno);
        unlink(tmp.c_str());
        return e;
    }
    return "";
}

nlohmann::json run_record(const std::string &status, int exit_status, const std::string &detail)
{
    return {{"completed", status == "completed"},
            {"status", status},
            {"exit_status", exit_status},
            {"detail", detail}};
}

} // namespace gmmu
