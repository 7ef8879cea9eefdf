#!/usr/bin/env python3
"""bench/ab-modules.sh without a GPU: a stand-in zsparse answers with a time that depends on the
module folder it is given (ZS_MODULE_DIR), so the alternation, the medians printed, the checks
and the errors of the script are all seen."""
import os
import stat
import subprocess
import sys
import tempfile

# The stand-in: folder "slow" takes 200 us, "fast" 100 us, "broken" fails, "wrong" fails --check
# (or gives a MAT-VANS chain another output hash than the cpu backend's); every call is logged
# with the kernel variant asked for, so the order of the runs can be checked.
FAKE = r"""#!/usr/bin/env bash
echo "$(basename "$ZS_MODULE_DIR") V=${ZS_EXPERIMENTAL_VANS_VARIANT:-unset} $*" >>"$AB_LOG"
if [ "$1" = vans ]; then
  case " $* " in *" --backend cpu "*) echo '{"hash": 7, "ms_per_layer": 9}'; exit 0 ;; esac
  h=7
  case $(basename "$ZS_MODULE_DIR") in
    slow) t=0.2 ;;
    fast) t=0.1 ;;
    broken) echo "zsparse vans: backend 'cuda' is not usable: stand-in" >&2; exit 1 ;;
    wrong) t=0.3 h=8 ;;
  esac
  echo "{\"hash\": $h, \"ms_per_layer\": $t}"
  exit 0
fi
case $(basename "$ZS_MODULE_DIR") in
  slow) t=0.0002 ;;
  fast) t=0.0001 ;;
  broken) echo "zsparse spmv: backend 'cuda' is not usable: stand-in" >&2; exit 1 ;;
  wrong) case " $* " in *" --check "*) echo "check: max_rel_err 1 > tolerance" >&2; exit 1 ;; esac; t=0.0003 ;;
esac
echo "{\"time_median_s\": $t, \"max_rel_err\": 2.5e-16, \"tolerance\": 2e-14}"
"""


def main():
    script = os.path.abspath(sys.argv[1])
    failures = 0

    def expect(what, cond, out):
        nonlocal failures
        if not cond:
            failures += 1
            print(f"FAIL {what}\n{out}")
        else:
            print(f"ok   {what}")

    with tempfile.TemporaryDirectory() as d:
        fake = os.path.join(d, "zsparse")
        with open(fake, "w") as f:
            f.write(FAKE)
        os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
        for name in ("slow", "fast", "broken", "wrong", "empty"):
            os.mkdir(os.path.join(d, name))
            if name != "empty":
                open(os.path.join(d, name, "libzsparse-cuda.so"), "w").close()
        blob = os.path.join(d, "m.zsm")
        open(blob, "w").close()
        log = os.path.join(d, "calls.log")
        env = dict(os.environ, ZSPARSE=fake, AB_LOG=log)

        def run(*args):
            if os.path.exists(log):
                os.remove(log)
            p = subprocess.run(["bash", script, *args], capture_output=True, text=True, env=env,
                               cwd=d)
            calls = open(log).read().splitlines() if os.path.exists(log) else []
            return p.returncode, p.stdout, p.stderr, calls

        slow, fast = os.path.join(d, "slow"), os.path.join(d, "fast")
        rc, out, err, calls = run("-r", "2", "-n", "7", slow, fast, "--", blob + ":N",
                                  blob + ":T:experimental.det_walk=lanes")
        lines = out.splitlines()
        expect("two modules, two cases, two rounds: exit 0", rc == 0, out + err)
        expect("one line per case and round", len(lines) == 4, out)
        expect("medians in microseconds, modules in the order given",
               lines[:1] == [f"{blob}:N: {slow} 200.0 {fast} 100.0"], out)
        expect("operator options passed on",
               all("--op-options experimental.det_walk=lanes" in c for c in calls if "--op T" in c) and
               sum("--op T" in c for c in calls) == 4, "\n".join(calls))
        expect("modules alternate within a round",
               [c.split()[0] for c in calls[:4]] == ["slow", "fast", "slow", "fast"], "\n".join(calls))
        expect("--repeat passed on", len(calls) == 8 and all("--repeat 7" in c for c in calls),
               "\n".join(calls))

        rc, out, err, calls = run("-r", "1", slow, os.path.join(d, "broken"), "--", blob + ":N")
        expect("a failing run: exit 1, 'error' in its place, the tool's message on stderr",
               rc == 1 and out.strip().endswith("error") and "stand-in" in err, out + err)

        rc, out, err, calls = run("-c", "-r", "1", slow, os.path.join(d, "wrong"), "--", blob + ":N")
        expect("-c: a module failing its check stops the script before any timing",
               rc == 1 and "CHECK FAILED" in err and out == "" and
               not any("--repeat 20" in c for c in calls), out + err)

        rc, out, err, calls = run("-c", "-r", "1", slow, fast, "--", blob + ":N")
        expect("-c: modules passing their checks are timed, each check's error on stderr",
               rc == 0 and out.count("\n") == 1 and
               err.count("max_rel_err 2.5e-16 <= tolerance 2e-14") == 2, out + err)

        chain = os.path.join(d, "p.vans")
        open(chain, "w").close()
        rc, out, err, calls = run("-r", "1", "-n", "5", slow, fast, "--", chain + ":24", chain)
        lines = out.splitlines()
        expect("chains: microseconds per layer, one line per case",
               rc == 0 and lines == [f"{chain}:24: {slow} 200.0 {fast} 100.0",
                                     f"{chain}: {slow} 200.0 {fast} 100.0"], out + err)
        expect("chains: the variant and --reps passed on, 0 (the default) when none is given",
               [c.split()[1] for c in calls] == ["V=24", "V=24", "V=0", "V=0"] and
               all(" vans run " in f" {c} " and "--reps 5" in c for c in calls), "\n".join(calls))

        rc, out, err, calls = run("-c", "-r", "1", slow, os.path.join(d, "wrong"), "--", chain + ":24")
        expect("-c: a chain whose output hash differs from the cpu backend's stops the script",
               rc == 1 and "CHECK FAILED" in err and out == "" and
               any("--backend cpu" in c for c in calls), out + err)
        rc, out, err, calls = run("-c", "-r", "1", slow, fast, "--", chain + ":24")
        expect("-c: chains with the cpu backend's hash are timed",
               rc == 0 and out.count("\n") == 1 and err.count("equals the cpu backend's") == 2,
               out + err)

        for what, args in (("no case", [slow]),
                           ("bad variant", [slow, "--", chain + ":x"]),
                           ("folder without the module", [os.path.join(d, "empty"), "--", blob + ":N"]),
                           ("bad op", [slow, "--", blob + ":X"]),
                           ("missing blob", [slow, "--", os.path.join(d, "none.zsm") + ":N"])):
            rc, out, err, _ = run(*args)
            expect(f"usage error ({what}): exit 2", rc == 2 and err, out + err)

    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
