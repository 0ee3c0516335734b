#!/usr/bin/env python3
"""Measures Redis's per-request cost and memory layout on this machine, without memory
pressure, for the redis workload (swap-table-p1-v4's redis-benchmark GET runs).

Starts a private redis-server on 127.0.0.1 (no persistence), loads K keys of D bytes under
redis-benchmark's key names (key:%012d), and records: used_memory per key (INFO memory),
the server's CPU seconds per GET under `redis-benchmark -r K -n N -d D -c 12 -P 32 -t get`
(utime+stime of the server from /proc), RPS, and one BGSAVE (fork time, RDB bytes, save
time). Writes JSON to stdout. Needs: apt-get install redis-server redis-tools.
Usage: /usr/bin/python3 tools/measure_redis.py [--keys K,K2] [--requests N] [--size D]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

PORT = 6390


def cli(*args):
    return subprocess.run(["redis-cli", "-p", str(PORT), *args], check=True,
                          capture_output=True, text=True).stdout


def info(section):
    d = {}
    for line in cli("INFO", section).splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            d[k] = v.strip()
    return d


def cpu_s(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    return (int(f[11]) + int(f[12])) / tck   # utime, stime


def start_server(d, port=None):
    """A private redis-server on 127.0.0.1 without persistence, its dir `d`, once it answers PING."""
    global PORT
    PORT = port or PORT
    srv = subprocess.Popen(["redis-server", "--port", str(PORT), "--bind", "127.0.0.1", "--save", "",
                            "--appendonly", "no", "--dir", d, "--daemonize", "no"], stdout=subprocess.DEVNULL)
    for _ in range(100):
        try:
            cli("PING")
            break
        except subprocess.CalledProcessError:
            time.sleep(0.05)
    return srv


def load(keys, size):
    val = b"x" * size
    p = subprocess.Popen(["redis-cli", "-p", str(PORT), "--pipe"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL)
    hdr = b"*3\r\n$3\r\nSET\r\n$16\r\n"
    tail = b"\r\n$%d\r\n%s\r\n" % (size, val)
    chunk = []
    for i in range(keys):
        chunk.append(hdr + b"key:%012d" % i + tail)
        if len(chunk) == 4096:
            p.stdin.write(b"".join(chunk))
            chunk = []
    p.stdin.write(b"".join(chunk))
    p.stdin.close()
    p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", default="200000,400000")
    ap.add_argument("--requests", type=int, default=2000000)
    ap.add_argument("--size", type=int, default=1024)
    a = ap.parse_args()
    out = {"what": "redis-server per-request cost and memory per key, no memory pressure",
           "made_by": "tools/measure_redis.py (this machine)",
           "server": subprocess.run(["redis-server", "--version"], capture_output=True,
                                    text=True).stdout.strip(),
           "cpu": next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                       if l.startswith("model name")),
           "value_bytes": a.size, "runs": []}
    for k in [int(x) for x in a.keys.split(",")]:
        d = tempfile.mkdtemp()
        srv = start_server(d)
        try:
            base = int(info("memory")["used_memory"])
            load(k, a.size)
            mem = info("memory")
            nkeys = int(re.search(r"keys=(\d+)", info("keyspace").get("db0", "keys=0")).group(1))
            c0, t0 = cpu_s(srv.pid), time.time()
            b = subprocess.run(["redis-benchmark", "-p", str(PORT), "-r", str(k), "-n",
                                str(a.requests), "-d", str(a.size), "-c", "12", "-P", "32",
                                "-t", "get", "-q"], capture_output=True, text=True).stdout
            c1, t1 = cpu_s(srv.pid), time.time()
            rps = float(re.findall(r"([\d.]+) requests per second", b)[-1])
            cli("BGSAVE")
            while info("persistence").get("rdb_bgsave_in_progress") != "0":
                time.sleep(0.05)
            pers, st = info("persistence"), info("stats")
            out["runs"].append({
                "keys": nkeys,
                "used_memory_bytes": int(mem["used_memory"]),
                "used_memory_per_key_bytes": round((int(mem["used_memory"]) - base) / nkeys, 1),
                "get_requests": a.requests,
                "rps": rps,
                "server_cpu_s": round(c1 - c0, 3),
                "server_cpu_us_per_get": round((c1 - c0) / a.requests * 1e6, 4),
                "bench_wall_s": round(t1 - t0, 3),
                "bgsave_fork_us": int(st["latest_fork_usec"]),
                "bgsave_s": int(pers["rdb_last_bgsave_time_sec"]),
                "rdb_bytes": os.path.getsize(os.path.join(d, "dump.rdb")),
            })
        finally:
            srv.terminate()
            srv.wait()
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
