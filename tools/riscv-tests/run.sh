#!/usr/bin/env bash
# tools/riscv-tests/run.sh - the official RISC-V ISA tests (riscv-software-src/riscv-tests: rv64ui, rv64um, rv64ua,
# rv64uf, rv64ud, rv64uc, physical-memory "-p-" variants) on a nocmsg chip.
#
# Each test's .S is assembled from the given riscv-tests checkout with nocmsg's own environment
# (tools/riscv-tests/env: riscv_test.h ends a test through semihosting exit instead of `tohost`; link.ld places it
# at 0x80000000) and run alone on core 0 of the chip. Prints a table, writes a CSV, and exits 1 if any test did not
# pass. Not part of `make test`: CI cannot fetch riscv-tests. See docs/riscv-tests.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: tools/riscv-tests/run.sh RISCV_TESTS_DIR [options]

  RISCV_TESTS_DIR      a checkout of https://github.com/riscv-software-src/riscv-tests (its isa/ is used;
                       the env/ submodule is not needed)
  --chip FILE          chip to run on (default chips/pimp-2x2.toml); each test runs on its core 0 (-n 1)
  --suites LIST        comma-separated suites (default: those of rv64ui,rv64um,rv64ua,rv64uf,rv64ud,rv64uc that the
                       chip's [core] isa covers; a suite named here runs even if the chip lacks its extension)
  --misaligned         also run rv64ui-p-ma_data (needs a chip that performs misaligned loads and stores)
  --out DIR            build and result directory (default target/riscv-tests): DIR/results.csv, DIR/run.txt,
                       DIR/elf/*.elf, DIR/log/*.{build,out,err,json}
  --max-cycles N       a test still running at cycle N fails (default 10000000)
  -h, --help           this text

environment: NOCMSG (simulator, default target/release/nocmsg), RISCV_GCC (default riscv64-unknown-elf-gcc)
exit status: 0 every selected test passed, 1 some test did not, 2 bad arguments or setup
EOF
}

die() {
    echo "riscv-tests: $*" >&2
    exit 2
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ENV_DIR=$ROOT/tools/riscv-tests/env
ALL_SUITES=(rv64ui rv64um rv64ua rv64uf rv64ud rv64uc)

tests_dir=""
chip=$ROOT/chips/pimp-2x2.toml
suites_arg=""
misaligned=0
out=$ROOT/target/riscv-tests
max_cycles=10000000
while [ $# -gt 0 ]; do
    case "$1" in
        --chip) [ $# -ge 2 ] || die "--chip needs a file"; chip=$2; shift 2 ;;
        --suites) [ $# -ge 2 ] || die "--suites needs a list"; suites_arg=$2; shift 2 ;;
        --misaligned) misaligned=1; shift ;;
        --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
        --max-cycles) [ $# -ge 2 ] || die "--max-cycles needs a number"; max_cycles=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        -*) usage >&2; die "unknown option $1" ;;
        *) [ -z "$tests_dir" ] || die "one RISCV_TESTS_DIR only (got $tests_dir and $1)"; tests_dir=$1; shift ;;
    esac
done
[ -n "$tests_dir" ] || { usage >&2; die "RISCV_TESTS_DIR is missing"; }
ISA_DIR=$(cd "$tests_dir" 2>/dev/null && pwd)/isa
[ -f "$ISA_DIR/macros/scalar/test_macros.h" ] ||
    die "$tests_dir is not a riscv-tests checkout (no isa/macros/scalar/test_macros.h)"
[ -f "$chip" ] || die "no chip file $chip"
[[ "$max_cycles" =~ ^[0-9]+$ ]] || die "--max-cycles takes a number of cycles, not $max_cycles"
NOCMSG=${NOCMSG:-$ROOT/target/release/nocmsg}
[ -x "$NOCMSG" ] ||
    die "no simulator at $NOCMSG: run \`make build\` (or cargo build --release -p nocmsg-cli) first, or set NOCMSG"
CC=${RISCV_GCC:-riscv64-unknown-elf-gcc}
command -v "$CC" >/dev/null || die "no $CC (Debian: apt-get install gcc-riscv64-unknown-elf; or set RISCV_GCC)"
command -v python3 >/dev/null || die "python3 is needed to read the simulator's statistics"

# The chip's ISA: [core] isa = "rv64gc"; chips without the key are RV64IM (all of nocmsg's chips before it existed).
chip_isa=$(awk '
    /^[[:space:]]*\[/ { table = $0; gsub(/[[:space:]]/, "", table) }
    table == "[core]" && /^[[:space:]]*isa[[:space:]]*=/ {
        v = $0; sub(/^[^=]*=[[:space:]]*"/, "", v); sub(/".*$/, "", v); print tolower(v); exit
    }' "$chip")
chip_isa=${chip_isa:-rv64im}
[[ "$chip_isa" =~ ^rv64[a-z] ]] || die "chip $chip: [core] isa = \"$chip_isa\" is not an rv64 ISA string"
# Single-letter extensions, with G spelled out (IMAFD; Zicsr and Zifencei come with every nocmsg core).
chip_letters=${chip_isa#rv64}
chip_letters=${chip_letters%%_*}
chip_letters=${chip_letters//g/imafd}

# What each suite needs from the chip, and the -march it is assembled with: the least that assembles it, so that
# the ELF declares what the test really uses. rv64uc is assembled without C like the official rv64g build: rvc.S
# switches C on itself (.option rvc) around the instructions it tests, which marks the ELF as RVC.
suite_needs() {
    case "$1" in
        rv64ui) echo i ;; rv64um) echo m ;; rv64ua) echo a ;; rv64uf) echo f ;; rv64ud) echo fd ;; rv64uc) echo c ;;
        *) return 1 ;;
    esac
}
zifencei=_zifencei
"$CC" -march=rv64i_zifencei -mabi=lp64 -c -x assembler /dev/null -o /dev/null 2>/dev/null || zifencei=""
suite_march() {
    case "$1" in
        rv64ui) echo "rv64i$zifencei" ;; rv64um) echo rv64im ;; rv64ua) echo rv64ia ;; rv64uf) echo rv64if ;;
        rv64ud) echo rv64ifd ;; rv64uc) echo rv64i ;;
    esac
}
chip_has() {
    local letter
    for letter in $(echo "$1" | grep -o .); do
        [[ "$chip_letters" == *"$letter"* ]] || return 1
    done
}

suites=()
left_out=()
if [ -n "$suites_arg" ]; then
    IFS=, read -r -a suites <<<"$suites_arg"
    for s in "${suites[@]}"; do
        suite_needs "$s" >/dev/null || die "unknown suite $s (known: ${ALL_SUITES[*]})"
    done
else
    for s in "${ALL_SUITES[@]}"; do
        if chip_has "$(suite_needs "$s")"; then suites+=("$s"); else left_out+=("$s"); fi
    done
fi

for s in "${suites[@]}"; do
    [ -f "$ISA_DIR/$s/Makefrag" ] || die "$tests_dir has no isa/$s/Makefrag"
done

# A suite's tests, as its Makefrag lists them (e.g. `rv64ui_sc_tests = add addi ... \`).
suite_tests() {
    awk -v var="$1_sc_tests" '
        $1 == var && $2 == "=" { on = 1; $1 = ""; $2 = "" }
        on { line = $0; more = sub(/\\[[:space:]]*$/, "", line); printf "%s ", line; if (!more) exit }
    ' "$ISA_DIR/$1/Makefrag"
}

mkdir -p "$out/elf" "$out/log"
csv=$out/results.csv
echo "suite,test,result,cycles,instructions,detail" >"$csv"
{
    options="--chip $chip${suites_arg:+ --suites $suites_arg}"
    if [ $misaligned = 1 ]; then options+=" --misaligned"; fi
    echo "command: tools/riscv-tests/run.sh $tests_dir $options --max-cycles $max_cycles"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    dirty=""
    git -C "$ROOT" diff --quiet HEAD 2>/dev/null || dirty=" (uncommitted changes)"
    echo "nocmsg: $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)$dirty"
    echo "riscv-tests: $(git -C "$tests_dir" rev-parse HEAD 2>/dev/null || echo 'unknown (not a git checkout)')"
    echo "chip: $chip (isa $chip_isa)"
    echo "compiler: $("$CC" --version | head -1)"
} >"$out/run.txt"

# The end of a run as "result|cycles|instructions|detail" (separated by the ASCII unit separator), from the
# statistics file `nocmsg run` writes (or, for a program it refused to load, from its stderr).
classify() {
    python3 - "$@" <<'EOF'
import json, sys
stats_path, err_path, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
def one_line(text):
    return " ".join(text.split())
try:
    with open(stats_path) as f:
        stats = json.load(f)
except (OSError, ValueError):
    with open(err_path) as f:
        err = f.read().strip()
    print("\x1f".join(["refused", "", "", one_line(err) or f"nocmsg exited with status {status} and no statistics"]))
    sys.exit()
end = stats.get("end", {})
cycles, instructions = stats.get("total_cycles", ""), stats.get("instructions", "")
reason = end.get("reason")
if status == 0 and reason == "exit":
    result, detail = "pass", ""
elif reason == "exit" or reason == "abort":
    code = end.get("code")
    result = "fail"
    detail = "failed before its first test (exit 1337)" if code == 1337 else f"test {code} failed"
elif reason == "fault":
    fault = end.get("fault", {})
    result = "fault"
    where = f"pc {fault.get('pc', 0):#x} [{fault.get('instruction') or 0:08x}] {fault.get('disassembly', '')}"
    detail = f"{fault.get('kind')} at {where}: {fault.get('reason', '')}"
elif reason == "cycle_limit":
    result, detail = "timeout", f"still running at cycle {end.get('cycle')}"
else:
    result, detail = "error", f"run ended: {reason} (status {status})"
print("\x1f".join([result, str(cycles), str(instructions), one_line(detail)]))
EOF
}

printf '%-26s %-8s %10s  %s\n' test result cycles detail
failures=0
total=0
declare -A suite_pass suite_total
for suite in "${suites[@]}"; do
    march=$(suite_march "$suite")
    suite_pass[$suite]=0
    suite_total[$suite]=0
    for t in $(suite_tests "$suite"); do
        if [ "$t" = ma_data ] && [ $misaligned = 0 ]; then
            continue
        fi
        name=$suite-p-$t
        elf=$out/elf/$name.elf
        log=$out/log/$name
        rm -f "$elf" "$log".*
        cycles="" instructions=""
        if ! "$CC" -march="$march" -mabi=lp64 -static -mcmodel=medany -fvisibility=hidden -nostdlib -nostartfiles \
            -I"$ENV_DIR" -I"$ISA_DIR/macros/scalar" -T"$ENV_DIR/link.ld" "$ISA_DIR/$suite/$t.S" -o "$elf" \
            >"$log.build" 2>&1; then
            result=build_error
            detail="$(grep -m1 -i 'error' "$log.build" || true) ($log.build)"
        else
            status=0
            "$NOCMSG" run --chip "$chip" -n 1 --max-cycles "$max_cycles" --stats "$log.json" "$elf" \
                >"$log.out" 2>"$log.err" </dev/null || status=$?
            IFS=$'\x1f' read -r result cycles instructions detail < <(classify "$log.json" "$log.err" "$status")
        fi
        total=$((total + 1))
        suite_total[$suite]=$((suite_total[$suite] + 1))
        if [ "$result" = pass ]; then
            suite_pass[$suite]=$((suite_pass[$suite] + 1))
        else
            failures=$((failures + 1))
        fi
        printf '%-26s %-8s %10s  %s\n' "$name" "$result" "$cycles" "$detail"
        echo "$suite,$name,$result,$cycles,$instructions,\"${detail//\"/\"\"}\"" >>"$csv"
    done
done

echo
for suite in "${suites[@]}"; do
    echo "$suite: ${suite_pass[$suite]}/${suite_total[$suite]} passed"
done
[ $misaligned = 1 ] || echo "rv64ui-p-ma_data not run (misaligned accesses; --misaligned runs it)"
for s in "${left_out[@]}"; do
    missing=$(suite_needs "$s" | tr a-z A-Z | sed 's/\B/ and /g')
    echo "$s not run: chip $(basename "$chip") has isa $chip_isa, without $missing (--suites $s runs it anyway)"
done
echo "$((total - failures))/$total passed; results in $csv"
[ "$failures" -eq 0 ]
