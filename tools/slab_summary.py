#!/usr/bin/env python3
# Summary of tools/measure_slab.sh's results file as JSON (calibration/workloads/kbuild-slab-6.1.json).
# Usage: tools/slab_summary.py RESULTS TREE_ENTRIES TREE_FILES INCLUDE_HEADERS KERNEL_RELEASE
import json, re, sys
res, total, reg, headers, kver = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cases = {}
for line in open(res):
    name = line.split()[0]
    head, slabs = line.split("slab_before:", 1)
    kv = dict(re.findall(r"(\w+)=(\d+)", head))
    before, after = slabs.split("slab_after:")
    sb = dict(re.findall(r"(\w+)=(\d+)", before)); sa = dict(re.findall(r"(\w+)=(\d+)", after))
    c = {k: int(v) for k, v in kv.items()}
    c["slab_objects_delta"] = {k: int(sa[k]) - int(sb[k]) for k in sb if k in sa}
    if "kmem_after" in c:
        c["kmem_delta_bytes"] = c["kmem_after"] - c["kmem_before"]
        if c.get("n"):
            c["kmem_bytes_per_entry"] = round(c["kmem_delta_bytes"] / c["n"], 1)
    cases[name] = c
slab = {}
for line in open("/proc/slabinfo"):
    f = line.split()
    if f and f[0] in ("dentry", "ext4_inode_cache", "shmem_inode_cache", "radix_tree_node", "buffer_head", "inode_cache"):
        slab[f[0]] = {"objsize": int(f[3]), "objperslab": int(f[4]), "pagesperslab": int(f[5])}
print(json.dumps({
    "made_by": "tools/measure_slab.sh",
    "kernel": kver,
    "tree": "Debian linux-source-6.1",
    "tree_entries": total, "tree_files": reg, "include_headers": headers,
    "units": "bytes; n = entries looked up (walk) or lookups that failed (negative) or entries copied",
    "cases": cases,
    "slabinfo_object_sizes": slab,
    "note": "memory.kmem.usage_in_bytes of a new child memcg (cgroup v1) before and after each case; slab_objects_delta is machine-wide /proc/slabinfo active objects (other jobs add noise)",
}, indent=1))
