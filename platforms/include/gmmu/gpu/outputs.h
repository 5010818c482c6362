// gmmu — gmmu-sim's output folder: checked before the simulation starts,
// locked for the run (one run per folder), every file written atomically (a
// temporary file in the same folder, synced, then renamed into place; a path
// that is not a regular file, such as a device or a FIFO, is written in place
// and never replaced), and a run.json that says whether the run completed, so
// a reader never mistakes an old or partial output for a new one.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmmu {

// Create `dir` if needed, check that it is a folder this process can write
// (by creating and removing a probe file), lock it for the rest of the
// process (flock on DIR/.gmmu-sim.lock; a folder another run holds is
// refused), and remove the previous run's outputs (run_output_names(), of
// every workload; regular files only). "" on success, else the problem.
std::string prepare_out_dir(const std::string &dir);

// Every file a gmmu-sim run may write into its output folder.
const std::vector<std::string> &run_output_names();

// The folder a program's run outputs go to (gmmu-sim: --out), for outputs
// named by config keys with relative paths (rtl.mismatch_fst); "." unless set.
void set_output_folder(const std::string &dir);
const std::string &output_folder();

// Write `text` to `path` atomically. "" on success, else the problem (naming the
// path); the previous file, if any, is left as it was. A symlink is followed
// (the file it names is replaced, the link stays); a path that exists and is
// not a regular file (a character device, a FIFO with a reader) is written
// in place, never renamed over; a FIFO with no reader is refused.
std::string write_atomic(const std::string &path, const std::string &text);

// A workload's output file `name` (one of run_output_names()) in `dir`,
// written with write_atomic.
std::string write_output(const std::string &dir, const std::string &name, const std::string &text);

// The run record: {"completed": bool, "status": "running" | "completed" |
// "failed" | "interrupted", "exit_status": N, "detail": "..."}.
nlohmann::json run_record(const std::string &status, int exit_status, const std::string &detail);

} // namespace gmmu
