# scripts/lib/bench.sh: shell helpers shared by the benchmark scripts (bench-filter,
# bench-pipeline, bench-overhead). Sourced, never run. The caller sets ROOT (the
# repository) and BENCH_NAME (its own name, for messages) first.
#
# Environment honoured by every benchmark:
#   DARKROOM_BIN          use this darkroom binary instead of building one
#   DARKROOM_SCRATCH      swift build --scratch-path for that build (default .build, relative to ROOT)
#   DARKROOM_BENCH_CACHE  cache: .deb files, the corpus, the compiled floor (default ~/.cache/darkroom-bench)

BENCH_CACHE="${DARKROOM_BENCH_CACHE:-$HOME/.cache/darkroom-bench}"
mkdir -p "$BENCH_CACHE"
BENCH_CACHE="$(cd "$BENCH_CACHE" && pwd)"
BENCH_LIB="$ROOT/scripts/lib"

bench_log() { printf '%s\n' "$*" >&2; }
bench_die() { bench_log "$BENCH_NAME: $*"; exit 1; }

# The header comment of a script (from line 2 to the first line not starting with #), as --help.
bench_usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$1"; }

# ------------------------------------------------------------ Debian packages ----
BENCH_SUDO=()
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then BENCH_SUDO=(sudo); else bench_log "$BENCH_NAME: not root and no sudo: installs will fail"; fi
fi
BENCH_APT_UPDATED=0
bench_apt_update() {
    if [ "$BENCH_APT_UPDATED" = 0 ]; then
        bench_log "== apt-get update"
        "${BENCH_SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
        BENCH_APT_UPDATED=1
    fi
}
bench_apt_install() {
    bench_apt_update
    bench_log "== apt-get install -y $*"
    "${BENCH_SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >&2
}

# bench_need COMMAND:PACKAGE... installs each PACKAGE whose COMMAND is not on PATH
# (COMMAND may be an absolute path).
bench_need() {
    local pair missing=()
    for pair in "$@"; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
    done
    ((${#missing[@]} == 0)) && return 0
    bench_apt_install "${missing[@]}"
    if [[ " ${missing[*]} " == *" nginx "* ]]; then
        # Debian starts the packaged nginx service; the benchmarks run their own, on loopback.
        "${BENCH_SUDO[@]}" systemctl stop nginx 2>/dev/null || "${BENCH_SUDO[@]}" service nginx stop 2>/dev/null || true
    fi
}

# The real ImageMagick, always by full path: /usr/local/bin/convert and friends earlier in
# PATH may be wrappers or stand-ins. Installs Debian's imagemagick when missing.
BENCH_CONVERT=/usr/bin/convert
BENCH_IDENTIFY=/usr/bin/identify
bench_need_imagemagick() {
    { [ -x "$BENCH_CONVERT" ] && [ -x "$BENCH_IDENTIFY" ] && "$BENCH_CONVERT" -version 2>/dev/null | grep -q ImageMagick; } ||
        bench_apt_install imagemagick
    # Debian's policy.xml caps ImageMagick's memory at 256 MiB, which sends a 20 MP
    # -color-matrix to a disk-backed pixel cache; this policy raises the limits for the
    # benchmarks' own runs only (nothing under /etc is touched).
    export BENCH_MAGICK_CONFIGURE_PATH="$ROOT/Benchmarks/imagemagick"
}

# A python3 that can import Pillow, in BENCH_PILLOW_PY: python3 itself, or a venv in the
# cache (pip install pillow; Debian's own python3 refuses pip installs, PEP 668).
bench_pillow_python() {
    local venv_py="$BENCH_CACHE/venv/bin/python"
    BENCH_PILLOW_PY=python3
    python3 -c 'import PIL' 2>/dev/null && return 0
    BENCH_PILLOW_PY="$venv_py"
    [ -x "$venv_py" ] && "$venv_py" -c 'import PIL' 2>/dev/null && return 0
    bench_log "== pip install pillow"
    if python3 -m pip install -q pillow >&2; then BENCH_PILLOW_PY=python3; return 0; fi
    bench_log "== pip could not install for python3; installing pillow into a venv in $BENCH_CACHE/venv"
    python3 -c 'import venv, ensurepip' 2>/dev/null || bench_apt_install python3-venv
    [ -x "$venv_py" ] || python3 -m venv "$BENCH_CACHE/venv" >&2
    "$venv_py" -m pip install -q pillow >&2
}

# ------------------------------------------------------------------- darkroom ----
# Sets DARKROOM to the binary: $DARKROOM_BIN, or a release build in $DARKROOM_SCRATCH.
# Returns 1 (with DARKROOM_NOTE saying why) when there is none; the caller decides.
bench_darkroom() {
    DARKROOM="" DARKROOM_NOTE=""
    if [ -n "${DARKROOM_BIN:-}" ]; then
        if [ -x "$DARKROOM_BIN" ]; then DARKROOM="$DARKROOM_BIN"; return 0; fi
        DARKROOM_NOTE="DARKROOM_BIN=$DARKROOM_BIN is not executable"; return 1
    fi
    if ! command -v swift >/dev/null; then
        DARKROOM_NOTE="no swift toolchain on PATH (or set DARKROOM_BIN)"; return 1
    fi
    local scratch="${DARKROOM_SCRATCH:-.build}" log="$BENCH_CACHE/swift-build.log"
    "$ROOT/scripts/setup"
    bench_log "== swift build -c release --product darkroom --scratch-path $scratch (log: $log)"
    if (cd "$ROOT" && swift build -c release --product darkroom --scratch-path "$scratch") >"$log" 2>&1; then
        DARKROOM="$(cd "$ROOT" && swift build -c release --scratch-path "$scratch" --show-bin-path)/darkroom"
        return 0
    fi
    { grep -m 10 'error:' "$log" || tail -n 15 "$log"; } | sed 's/^/    /' >&2
    DARKROOM_NOTE="swift build failed (see $log)"
    return 1
}

# ----------------------------------------------------------------- the corpus ----
# Sets CORPUS to scripts/bench-filter's folder of photographs (fetched once into the cache).
bench_corpus() {
    CORPUS="$("$ROOT/scripts/bench-filter" --corpus-only | sed -n 's/^corpus folder: //p')"
    [ -n "$CORPUS" ] && [ -d "$CORPUS" ] || bench_die "no corpus (scripts/bench-filter --corpus-only failed)"
}

# --------------------------------------------------------- work folder, nginx ----
# bench_workdir: WORK, a fresh folder removed on exit, with everything started from it.
# Processes the benchmark starts in the background (nginx, daemons started from Python)
# write their pid to $WORK/pids; on exit each of them, and only them, gets SIGTERM.
bench_workdir() {
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/darkroom-$BENCH_NAME.XXXXXX")"
    : >"$WORK/pids"
    trap bench_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
bench_cleanup() {
    local pid
    if [ -n "${WORK:-}" ] && [ -f "$WORK/pids" ]; then
        while read -r pid; do
            [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
        done <"$WORK/pids"
        sleep 0.2
    fi
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
    [ -n "${BENCH_SHM:-}" ] && rm -rf "$BENCH_SHM"
    return 0
}

# bench_shm: BENCH_SHM, a fresh folder on tmpfs (/dev/shm), removed on exit; empty if there is none.
bench_shm() {
    BENCH_SHM=""
    if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ]; then
        BENCH_SHM="$(mktemp -d "/dev/shm/darkroom-$BENCH_NAME.XXXXXX")"
    fi
}

# bench_nginx: serves the corpus at http://127.0.0.1:$BENCH_PORT/photos/NAME.jpg (and
# /slow/photos/..., trickled at 1 KiB/s) and a 7×5 PNG at /tiny.png, from $WORK/www,
# with Benchmarks/nginx/nginx.conf. Loopback only.
bench_nginx() {
    bench_need nginx:nginx curl:curl
    mkdir -p "$WORK/www/photos" "$WORK/tmp"
    cp -L "$CORPUS"/*.jpg "$WORK/www/photos/"
    cp "$ROOT/Tests/DarkroomImagingTests/Fixtures/png-rgb8-7x5.png" "$WORK/www/tiny.png"
    # nginx's workers run as an unprivileged user: mktemp -d made the folder 0700.
    chmod 755 "$WORK"
    chmod -R a+rX "$WORK/www"
    BENCH_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    sed -e "s|PORT|$BENCH_PORT|g" -e "s|ROOT|$WORK/www|g" "$ROOT/Benchmarks/nginx/nginx.conf" >"$WORK/nginx.conf"
    nginx -p "$WORK" -c "$WORK/nginx.conf" &
    echo $! >>"$WORK/pids"
    local _
    for _ in $(seq 50); do
        curl -sf "http://127.0.0.1:$BENCH_PORT/tiny.png" -o /dev/null && return 0
        sleep 0.1
    done
    bench_die "nginx did not answer on 127.0.0.1:$BENCH_PORT (config $WORK/nginx.conf)"
}
