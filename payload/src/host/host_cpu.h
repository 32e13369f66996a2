/* host/host_cpu.h: the processor as the kernel describes it: model and
 * identification from /proc/cpuinfo, topology from
 * /sys/devices/system/cpu and node, frequency and its policy from cpufreq,
 * SMT and the vulnerability/mitigation lines: the system table's "cpu"
 * (docs/result-schema.md). */
#ifndef BB_HOST_CPU_H
#define BB_HOST_CPU_H

#include <cjson/cJSON.h>

/* A new object of what root (see host_sysfs.h) tells of the CPUs:
 * model, vendor, family, model_id, stepping, microcode, sockets, cores,
 * threads, numa_nodes, base_mhz, max_mhz, scaling_driver, governor,
 * boost, smt, smt_control, vulnerabilities {name: line}.  A fact the
 * system does not tell is left out.  NULL when memory runs out. */
cJSON *host_cpu_json(const char *root);

#endif
