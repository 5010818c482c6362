// gmmu — gmmu-sim's output folder: checked before the simulation starts,
// every file written atomically (a temporary file in the same folder, synced,
// then renamed into place), and a run.json that says whether the run
// completed, so a reader never mistakes an old or partial output for a new one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gmmu {

// Create `dir` if needed, check that it is a folder this process can write
// (by creating and removing a probe file), and remove the previous run's
// stats.json, config.json and run.json. "" on success, else the problem.
std::string prepare_out_dir(const std::string &dir);

// The folder a program's run outputs go to (gmmu-sim: --out), for outputs
// named by config keys with relative paths (rtl.mismatch_fst); "." unless set.
void set_output_folder(const std::string &dir);
const std::string &output_folder();

// Write `text` to `path` atomically. "" on success, else the problem (naming the
// path); the previous file, if any, is left as it was.
std::string write_atomic(const std::string &path, const std::string &text);

// The run record: {"completed": bool, "status": "running" | "completed" |
// "failed" | "interrupted", "exit_status": N, "detail": "..."}.
nlohmann::json run_record(const std::string &status, int exit_status, const std::string &detail);

} // namespace gmmu
