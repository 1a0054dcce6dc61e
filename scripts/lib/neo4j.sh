# shellcheck shell=bash
#
# Start and stop a throw-away Neo4j 5 Community server (embedded, no Docker)
# for test scripts. Source this file, then:
#
#     source scripts/lib/neo4j.sh
#     trap stop_neo4j EXIT
#     start_neo4j [DATA_DIR]        # exports REDSTRING_TEST_NEO4J_URI
#     ...tests...
#     stop_neo4j
#
# Safe to source from scripts running under `set -euo pipefail`. Both
# functions print their messages to stderr and return non-zero on failure.
#
# start_neo4j [DATA_DIR]
#   Builds infra/neo4j-launcher with Maven when its jar is missing or older
#   than its sources, starts it in the background with its Neo4j home (data/,
#   logs/debug.log, launcher.log) in DATA_DIR (default: a new mktemp dir,
#   deleted again by stop_neo4j), waits for Bolt and exports:
#     REDSTRING_TEST_NEO4J_URI   bolt://127.0.0.1:PORT  (auth disabled)
#     REDSTRING_NEO4J_PID        the launcher JVM's process id
#     REDSTRING_NEO4J_HOME       the Neo4j home directory
#   The pid is also written to DATA_DIR/launcher.pid.
#
# stop_neo4j [DATA_DIR]
#   Sends SIGTERM (clean shutdown), waits, SIGKILLs after
#   REDSTRING_NEO4J_STOP_TIMEOUT seconds. Without an argument it stops the
#   server started by start_neo4j in this shell; with one, the server whose
#   launcher.pid is in DATA_DIR. Does nothing if none is running.
#
# Optional settings (environment):
#   REDSTRING_NEO4J_PORT           Bolt port; 0 (default) = a free port
#   REDSTRING_NEO4J_JAVA_OPTS      JVM options (default: -Xms256m -Xmx1g ...)
#   REDSTRING_NEO4J_PAGECACHE      page cache size (default 128m)
#   REDSTRING_NEO4J_START_TIMEOUT  seconds to wait for Bolt (default 180)
#   REDSTRING_NEO4J_STOP_TIMEOUT   seconds to wait for shutdown (default 60)
#   REDSTRING_NEO4J_WATCH_PID      the JVM exits by itself when this process
#                                  exits (default: $$, the sourcing shell);
#                                  0 disables it
#   REDSTRING_NEO4J_KEEP_DATA      1 = stop_neo4j keeps a mktemp data dir

_redstring_neo4j_lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REDSTRING_NEO4J_LAUNCHER_DIR="${REDSTRING_NEO4J_LAUNCHER_DIR:-$(dirname "$(dirname "$_redstring_neo4j_lib_dir")")/infra/neo4j-launcher}"

_redstring_neo4j_log() {
    printf 'neo4j.sh: %s\n' "$*" >&2
}

# Build the launcher if target/neo4j-launcher.jar (or target/lib) is missing
# or any source file is newer than the jar.
_redstring_neo4j_build() {
    local dir="$REDSTRING_NEO4J_LAUNCHER_DIR"
    local jar="$dir/target/neo4j-launcher.jar"
    local stale=""

    if [[ ! -f "$dir/pom.xml" ]]; then
        _redstring_neo4j_log "launcher sources not found in $dir"
        return 1
    fi
    if [[ ! -f "$jar" || ! -d "$dir/target/lib" ]]; then
        stale="missing"
    else
        stale="$(find "$dir/pom.xml" "$dir/src" -newer "$jar" -print -quit 2>/dev/null || true)"
    fi
    if [[ -z "$stale" ]]; then
        return 0
    fi

    if ! command -v mvn >/dev/null 2>&1; then
        _redstring_neo4j_log "mvn not found; Maven 3.8+ and Java 17 are needed to build the Neo4j launcher"
        return 1
    fi
    _redstring_neo4j_log "building Neo4j launcher in $dir (mvn package)"
    local -a mvn_cmd=(mvn -q -B -f "$dir/pom.xml" package -DskipTests)
    mkdir -p "$dir/target" || return 1
    if command -v flock >/dev/null 2>&1; then
        # two scripts building at once would trample each other's target/
        mvn_cmd=(flock -w 900 "$dir/target/.build.lock" "${mvn_cmd[@]}")
    fi
    # (Maven 3.8 -q still prints stray colour codes: keep its output in a log)
    local build_log="$dir/target/build.log"
    if ! "${mvn_cmd[@]}" >"$build_log" 2>&1; then
        _redstring_neo4j_log "building the Neo4j launcher failed; last lines of $build_log:"
        tail -n 40 "$build_log" >&2 || true
        return 1
    fi
    if [[ ! -f "$jar" ]]; then
        _redstring_neo4j_log "build finished but $jar is missing"
        return 1
    fi
    # make sure the jar counts as newer than the sources even if mvn left it alone
    touch "$jar"
}

start_neo4j() {
    local home="${1:-}"
    local home_is_temp=0
    local port="${REDSTRING_NEO4J_PORT:-0}"
    local timeout="${REDSTRING_NEO4J_START_TIMEOUT:-180}"
    local pagecache="${REDSTRING_NEO4J_PAGECACHE:-128m}"
    local watch_pid="${REDSTRING_NEO4J_WATCH_PID:-$$}"
    local java_opts="${REDSTRING_NEO4J_JAVA_OPTS:--Xms256m -Xmx1g -XX:+ExitOnOutOfMemoryError}"
    local jar="$REDSTRING_NEO4J_LAUNCHER_DIR/target/neo4j-launcher.jar"

    if [[ -n "${REDSTRING_TEST_NEO4J_URI:-}" && -z "${REDSTRING_NEO4J_PID:-}" ]]; then
        _redstring_neo4j_log "using Neo4j at REDSTRING_TEST_NEO4J_URI ($REDSTRING_TEST_NEO4J_URI)"
        return 0
    fi
    if [[ -n "${REDSTRING_NEO4J_PID:-}" ]] && kill -0 "$REDSTRING_NEO4J_PID" 2>/dev/null; then
        _redstring_neo4j_log "Neo4j is already running (pid $REDSTRING_NEO4J_PID, $REDSTRING_TEST_NEO4J_URI); call stop_neo4j first"
        return 1
    fi
    if ! command -v java >/dev/null 2>&1; then
        _redstring_neo4j_log "java not found; Java 17+ is needed to run Neo4j"
        return 1
    fi
    _redstring_neo4j_build || return 1

    if [[ -z "$home" ]]; then
        home="$(mktemp -d "${TMPDIR:-/tmp}/redstring-neo4j.XXXXXX")" || {
            _redstring_neo4j_log "mktemp failed"
            return 1
        }
        home_is_temp=1
    fi
    mkdir -p "$home" || {
        _redstring_neo4j_log "cannot create data dir $home"
        return 1
    }
    home="$(cd "$home" && pwd)" || return 1

    local uri_file="$home/bolt-uri"
    local log_file="$home/launcher.log"
    rm -f "$uri_file" "$home/launcher.pid"

    local -a opts=()
    read -r -a opts <<<"$java_opts" || true
    local -a watch=()
    if [[ "$watch_pid" != "0" && -n "$watch_pid" ]]; then
        watch=(--watch-pid "$watch_pid")
    fi

    local t0="${EPOCHREALTIME:-$SECONDS}"
    # Non-interactive bash starts background jobs with SIGINT ignored, and a
    # JVM that inherits that ignores Ctrl-C / kill -INT; restore it, then exec
    # so that $! is the JVM itself.
    (
        trap - INT QUIT
        exec java "${opts[@]}" -jar "$jar" \
            --port "$port" --data "$home" --uri-file "$uri_file" \
            --pagecache "$pagecache" --start-timeout "$timeout" "${watch[@]}"
    ) </dev/null >>"$log_file" 2>&1 &
    local pid=$!
    printf '%s\n' "$pid" >"$home/launcher.pid"

    local deadline=$((SECONDS + timeout))
    local uri=""
    while :; do
        if [[ -s "$uri_file" ]]; then
            uri="$(<"$uri_file")"
            break
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            local rc=0
            wait "$pid" 2>/dev/null || rc=$?
            _redstring_neo4j_log "Neo4j launcher exited (status $rc) before Bolt came up; last lines of $log_file:"
            tail -n 30 "$log_file" >&2 || true
            rm -f "$home/launcher.pid"
            return 1
        fi
        if ((SECONDS >= deadline)); then
            _redstring_neo4j_log "Neo4j did not come up within ${timeout}s; killing pid $pid; last lines of $log_file:"
            tail -n 30 "$log_file" >&2 || true
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            rm -f "$home/launcher.pid"
            return 1
        fi
        sleep 0.2
    done

    if [[ ! "$uri" =~ ^bolt://127\.0\.0\.1:[0-9]+$ ]]; then
        _redstring_neo4j_log "unexpected URI '$uri' in $uri_file"
        kill -TERM "$pid" 2>/dev/null || true
        return 1
    fi

    export REDSTRING_TEST_NEO4J_URI="$uri"
    export REDSTRING_NEO4J_PID="$pid"
    export REDSTRING_NEO4J_HOME="$home"
    export REDSTRING_NEO4J_HOME_IS_TEMP="$home_is_temp"

    local took=""
    if [[ -n "${EPOCHREALTIME:-}" ]]; then
        local t1="$EPOCHREALTIME"
        local us=$(( ${t1//[.,]/} - ${t0//[.,]/} ))
        took=" in $((us / 1000000)).$(( (us / 100000) % 10 ))s"
    fi
    _redstring_neo4j_log "Neo4j up at $uri$took (pid $pid, home $home)"
}

stop_neo4j() {
    local home="${1:-}"
    local pid=""
    local timeout="${REDSTRING_NEO4J_STOP_TIMEOUT:-60}"
    local own=0

    if [[ -n "$home" ]]; then
        if [[ -f "$home/launcher.pid" ]]; then
            pid="$(<"$home/launcher.pid")"
        fi
        if [[ -n "$pid" && "$pid" == "${REDSTRING_NEO4J_PID:-}" ]]; then
            own=1
        fi
    else
        pid="${REDSTRING_NEO4J_PID:-}"
        home="${REDSTRING_NEO4J_HOME:-}"
        own=1
    fi

    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        local deadline=$((SECONDS + timeout))
        while kill -0 "$pid" 2>/dev/null; do
            if ((SECONDS >= deadline)); then
                _redstring_neo4j_log "Neo4j (pid $pid) still running ${timeout}s after SIGTERM; sending SIGKILL"
                kill -KILL "$pid" 2>/dev/null || true
                break
            fi
            sleep 0.1
        done
        # reap it if it is our child; harmless otherwise
        wait "$pid" 2>/dev/null || true
        _redstring_neo4j_log "Neo4j (pid $pid) stopped"
    fi

    if [[ -n "$home" ]]; then
        rm -f "$home/launcher.pid" "$home/bolt-uri"
    fi
    if ((own)); then
        if [[ "${REDSTRING_NEO4J_HOME_IS_TEMP:-0}" == "1" && -n "$home" && "${REDSTRING_NEO4J_KEEP_DATA:-0}" != "1" ]]; then
            rm -rf "$home"
        fi
        unset REDSTRING_TEST_NEO4J_URI REDSTRING_NEO4J_PID REDSTRING_NEO4J_HOME REDSTRING_NEO4J_HOME_IS_TEMP
    fi
    return 0
}
