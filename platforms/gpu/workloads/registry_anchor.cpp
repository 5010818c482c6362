// Keeps the gmmu_workloads object library non-empty; each other file in this
// folder registers one or more workloads with register_workload().
namespace gmmu {
int workloads_anchor = 0;
}
