"""Python helpers shared by the benchmark scripts (bench-filter, bench-pipeline,
bench-overhead): the machine and the versions, the sepia matrix and ImageMagick's
arguments, and a darkroom daemon driven through its inbox and journal.

Imported from the scripts' inline Python after `sys.path.insert(0, ROOT/scripts/lib)`."""

import datetime
import json
import os
import plistlib
import re
import signal
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def run(cmd, **kw):
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, **kw)


def first_line(cmd):
    try:
        r = run(cmd)
        return ((r.stdout or r.stderr).strip().splitlines() or ["unknown"])[0]
    except Exception:
        return "unknown"


def section(title):
    print(f"\n== {title}", flush=True)


# ------------------------------------------------------------- the machine ----
def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def nproc():
    try:
        return int(run(["nproc"]).stdout.strip())
    except Exception:
        return os.cpu_count() or 1


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def machine_line():
    return f"nproc {nproc()}, {cpu_model()}, Linux {os.uname().release}, load average {load_average()}"


def versions(darkroom=None, convert=None, nginx=False, curl=False):
    """name -> version string for whatever was asked for."""
    v = {}
    if darkroom:
        v["darkroom"] = first_line([darkroom, "--version"])
    v["libjpeg-turbo"] = run(["dpkg-query", "-W", "-f", "${Version}", "libjpeg62-turbo"]).stdout.strip() or "unknown"
    if nginx:
        v["nginx"] = first_line(["nginx", "-v"]).replace("nginx version: ", "").replace("nginx/", "")
    if curl:
        v["curl"] = (first_line(["curl", "--version"]).split() + ["unknown", "unknown"])[1]
    if convert:
        v["ImageMagick"] = first_line([convert, "-version"]).replace("Version: ImageMagick ", "").split(" https")[0]
    return v


# --------------------------------------------------------------- the filter ----
def sepia_matrix(amount):
    """The W3C Filter Effects sepia(amount) matrix, rows R', G', B'."""
    k = 1.0 - amount
    return [
        [0.393 + 0.607 * k, 0.769 - 0.769 * k, 0.189 - 0.189 * k],
        [0.349 - 0.349 * k, 0.686 + 0.314 * k, 0.168 - 0.168 * k],
        [0.272 - 0.272 * k, 0.534 - 0.534 * k, 0.131 + 0.869 * k],
    ]


def im_matrix(amount):
    """The same matrix as ImageMagick's -color-matrix argument."""
    return " ".join(f"{v:.6f}" for row in sepia_matrix(amount) for v in row)


# -limit thread 1: one core per process (the parallelism comes from running several);
# -sampling-factor 2x2: ImageMagick keeps the input's subsampling (often 4:2:2 here), the others write 4:2:0.
IM_LIMITS = ["-limit", "thread", "1", "-limit", "memory", "4GiB", "-limit", "map", "8GiB", "-limit", "area", "1GP"]


def im_args(src, dst, amount, quality):
    return [*IM_LIMITS, src, "-color-matrix", im_matrix(amount), "-sampling-factor", "2x2", "-quality", str(quality), dst]


# -------------------------------------------------------------- processes ----
def proc_times(pid):
    """(user, system) CPU seconds of a live process, all its threads (clock-tick resolution)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def proc_status(pid, key):
    """A kB or count field of /proc/PID/status (the main thread's, for per-thread fields)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def proc_switches(pid):
    """{thread id: voluntary + involuntary context switches} of the live threads."""
    counts = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            counts[tid] = (proc_status(f"{pid}/task/{tid}", "voluntary_ctxt_switches"),
                           proc_status(f"{pid}/task/{tid}", "nonvoluntary_ctxt_switches"))
        except OSError:
            pass
    return counts


def switches_since(pid, before):
    """(voluntary, involuntary) context switches since `before` (a proc_switches result), over the
    threads alive now; threads that ended meanwhile are not counted."""
    now = proc_switches(pid)
    vol = sum(v - before.get(t, (0, 0))[0] for t, (v, _) in now.items())
    invol = sum(i - before.get(t, (0, 0))[1] for t, (_, i) in now.items())
    return vol, invol


def filesystem(path):
    """'ext4 on /dev/vda (no journal), mounted on /' and the like, for the folder `path`."""
    st = os.stat(path)
    best = None
    for line in open("/proc/self/mountinfo"):
        left, right = line.split(" - ", 1)
        fields = left.split()
        mount, devno = fields[4], fields[2]
        fstype, source = right.split()[:2]
        major, minor = (int(x) for x in devno.split(":"))
        if os.makedev(major, minor) == st.st_dev and (best is None or len(mount) > len(best[0])):
            best = (mount, fstype, source)
    if not best:
        return "unknown file system"
    mount, fstype, source = best
    journal = ""
    if fstype == "ext4":
        name = os.path.basename(source)
        journal = " (journal)" if any(d.startswith(name + "-") for d in os.listdir("/proc/fs/jbd2")) else " (no journal)"
    return f"{fstype}{journal} on {source}, mounted on {mount}"


def system_times():
    """Machine-wide CPU seconds from /proc/stat: user+nice, system+irq+softirq, idle+iowait, steal."""
    f = [int(x) / TICK for x in open("/proc/stat").readline().split()[1:9]]
    return {"busy": f[0] + f[1] + f[2] + f[5] + f[6], "idle": f[3] + f[4], "steal": f[7]}


# --------------------------------------------------------------- a daemon ----
def rfc3339(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()


class Daemon:
    """`darkroom run` on BASE/NAME/in → BASE/NAME/out (BASE defaults to WORK); its pid goes to
    WORK/pids so the script's exit trap stops it whatever happens."""

    def __init__(self, binary, work, name, *extra, wrap=(), base=None):
        self.work = work
        self.root = os.path.join(base or work, name)
        self.inbox, self.outbox = f"{self.root}/in", f"{self.root}/out"
        os.makedirs(self.root, exist_ok=True)
        self._offset, self._records = 0, []
        self.proc = subprocess.Popen([*wrap, binary, "run", "--inbox", self.inbox, "--outbox", self.outbox, *extra],
                                     stdin=subprocess.DEVNULL, stderr=open(f"{self.root}/daemon.log", "w"))
        with open(os.path.join(work, "pids"), "a") as f:
            f.write(f"{self.proc.pid}\n")
        # Under a wrapper (strace) the daemon's own pid is the one its daemon.started record names.
        started = lambda r: next((x for x in r if x["event"] == "daemon.started" and (wrap or x.get("pid") == self.proc.pid)), None)
        if not self.wait_for(started, 60):
            raise RuntimeError(f"daemon did not start; see {self.root}/daemon.log")
        self.pid = started(self.journal()).get("pid", self.proc.pid)
        if self.pid != self.proc.pid:
            with open(os.path.join(work, "pids"), "a") as f:
                f.write(f"{self.pid}\n")

    def journal(self):
        """Every record so far (read incrementally; a torn last line waits for the next call)."""
        try:
            with open(f"{self.outbox}/journal.jsonl", "rb") as f:
                f.seek(self._offset)
                data = f.read()
        except FileNotFoundError:
            return self._records
        end = data.rfind(b"\n") + 1
        for line in data[:end].splitlines():
            try:
                self._records.append(json.loads(line))
            except ValueError:
                pass
        self._offset += end
        return self._records

    def wait_for(self, predicate, timeout=600, poll=0.02):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if predicate(self.journal()):
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(poll)
        return False

    def event(self, name, manifest=None):
        return next((x for x in self.journal() if x["event"] == name and (manifest is None or x.get("manifest") == manifest)), None)

    def drop(self, name, photos):
        """Writes a manifest under a temporary name and renames it in; returns the time of the rename."""
        tmp = f"{self.inbox}/.{name}.tmp"
        with open(tmp, "wb") as f:
            plistlib.dump(photos, f)
        stamp = time.time()
        os.rename(tmp, f"{self.inbox}/{name}.plist")
        return stamp

    def stop(self, timeout=60):
        """SIGTERM to the daemon; returns the seconds until it (and its wrapper, if any) exited."""
        t = time.time()
        os.kill(self.pid, signal.SIGTERM)
        self.proc.wait(timeout)
        elapsed = time.time() - t
        # Forget the pids, so that the exit trap never signals a process that reused one.
        pids = os.path.join(self.work, "pids")
        gone = {str(self.pid), str(self.proc.pid)}
        with open(pids) as f:
            keep = [p for p in f.read().split() if p not in gone]
        with open(pids, "w") as f:
            f.write("".join(p + "\n" for p in keep))
        return elapsed


# ------------------------------------------------------------------ tables ----
def print_table(header, rows, right, markdown=False):
    """A plain table, or a Markdown one; `right` holds the indexes of right-aligned columns."""
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    line = lambda r: "  ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(r)).rstrip()
    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def jpeg_size(path):
    """(width, height) from a JPEG's SOF marker, without decoding."""
    with open(path, "rb") as f:
        data = f.read()
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    raise ValueError(f"{path}: no SOF marker")
