# Sourced by experiments' run.sh: run commands at most JOBS at a time (the
# same JOBS as the gmmu-sweep runs, default 2), and fail if any failed.
#   job CMD ARGS...   start CMD in the background (waits while JOBS run)
#   jobs_wait         wait for every started CMD; exit 1 if one failed
_job_pids=()
_job_failed=0
job() {
  if [ "${#_job_pids[@]}" -ge "${JOBS:-2}" ]; then
    wait "${_job_pids[0]}" || _job_failed=1
    _job_pids=("${_job_pids[@]:1}")
  fi
  "$@" &
  _job_pids+=("$!")
}
jobs_wait() {
  local p
  for p in "${_job_pids[@]}"; do
    wait "$p" || _job_failed=1
  done
  _job_pids=()
  if [ "$_job_failed" != 0 ]; then
    echo "run.sh: a run failed" >&2
    exit 1
  fi
}
