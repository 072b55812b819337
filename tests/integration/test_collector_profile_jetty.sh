#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --profile on a real Java server's boot (issue 34, item 1): Debian's
# jetty9 (9.4, on openjdk-17), its start.jar with a base of the test's own
# (modules deploy and http, the package's root webapp, a free loopback
# port), booted in spawn mode until it listens. Checked:
#  - at most 20% of the boot's samples carry an unnamed frame ([unknown],
#    [lib+0xOFF]) in analyze's folded stacks (the share is printed);
#  - its main thread's Java stacks are whole: at least 90% of its samples
#    with a Java frame reach org.eclipse.jetty.start.Main.main (or the
#    launcher's LauncherHelper, which loads it), the walk not cut short nor
#    lost on the way (Jetty's XML configuration nests reflection deep);
#  - the top Java functions of analyze --profile are named pkg.Class.method
#    with their file, and Jetty's are among them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/runtimes.sh"	# rt_free_port
need_root
need_profile_checks
JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
HOME_J=/usr/share/jetty9
for f in "$JAVA" "$HOME_J/start.jar" /var/lib/jetty9/webapps/root/index.html; do
	[ -e "$f" ] || { [ "${CI:-}" = true ] &&
		fail "no $f (scripts/install-deps.sh installs openjdk-17 and jetty9)"; skip "no $f"; }
done
port=$(rt_free_port) || fail "no free port"
base=$TMP/jetty-base
mkdir -p "$base/webapps" && cp -r /var/lib/jetty9/webapps/root "$base/webapps/" || fail "cannot make $base"
printf -- '--module=deploy,http\njetty.http.host=127.0.0.1\njetty.http.port=%s\n' "$port" > "$base/start.ini"
tsv=$TMP/jetty.tsv
"$COLLECTOR" --profile=999 --until listen -o "$tsv" -- "$JAVA" -jar "$HOME_J/start.jar" \
	jetty.home="$HOME_J" jetty.base="$base" > "$TMP/out" 2> "$TMP/err" ||
	[ $? -eq 143 ] || fail "collector exited: $(tail -3 "$TMP/err")"	# 143: stopped at listen
check_tsv "$tsv"
rows "$tsv" syscall listen | grep -qF "127.0.0.1]:$port" || fail "jetty did not listen on $port"

# unnamed frames, in the folded stacks of the boot (start -> listen)
"$ANALYZE" --profile --format folded "$tsv" > "$TMP/folded" || fail "analyze --format folded exited $?"
read -r all bad < <(awk '{ n = $NF; all += n; $NF = ""; k = split($0, f, ";"); b = 0
	for (i = 1; i <= k; i++) { sub(/ $/, "", f[i])
		if (f[i] == "[unknown]" || f[i] ~ /^\[[^]]*\+0x[0-9a-f]+\](_\[k\])?$/) b = 1 }
	bad += b * n } END { print all + 0, bad + 0 }' "$TMP/folded")
[ "$all" -ge 500 ] || fail "only $all samples in the boot"
[ $((bad * 5)) -le "$all" ] || fail "$bad of $all samples carry an unnamed frame (over 20%)"

# the main thread: the one whose samples name Main.main most
main=$(python3 - "$tsv" <<'PY'
import sys, collections
st, c = {}, collections.Counter()
for l in open(sys.argv[1], 'rb'):
    f = l.rstrip(b'\n').split(b'\t')
    if len(f) != 12: continue
    if f[7] == b'stack': st[f[8]] = f[11]
    elif f[7] == b'sample' and b'org.eclipse.jetty.start.Main.main' in st.get(f[8], b''): c[f[4]] += 1
print(c.most_common(1)[0][0].decode() if c else '')
PY
)
[ -n "$main" ] || fail "no sample names org.eclipse.jetty.start.Main.main"
read -r _ java < <("${PC[@]}" --tid "$main" --name . share "$tsv")
read -r _ whole < <("${PC[@]}" --tid "$main" --name org.eclipse.jetty.start.Main.main share "$tsv")
read -r _ launch < <("${PC[@]}" --tid "$main" --name sun.launcher.LauncherHelper share "$tsv")
[ $(((whole + launch) * 10)) -ge $((java * 9)) ] ||
	fail "$((whole + launch)) of the main thread's $java samples with Java frames reach Main.main or LauncherHelper (under 90%)"

# the top Java functions (modules [interpreted] and [jit], not stubs): named, Jetty's among them
"$ANALYZE" --profile --top 100000 --format tsv "$tsv" > "$TMP/prof" || fail "analyze --profile exited $?"
# container file function module self_samples ... total_samples (8): by total
top=$(awk -F'\t' 'NR > 1 && ($4 == "[interpreted]" || $4 == "[jit]") && $3 ~ /\.java/' "$TMP/prof" |
	sort -t"$(printf '\t')" -k8,8nr | head -10)
[ "$(echo "$top" | grep -c .)" -eq 10 ] || fail "fewer than 10 named Java functions: $(head -20 "$TMP/prof")"
echo "$top" | grep -q 'org\.eclipse\.jetty\.' || fail "no Jetty function among the top Java ones: $top"
ok "jetty9 booted to listen: $bad of $all samples ($((bad * 1000 / all / 10)).$((bad * 1000 / all % 10))%) with an unnamed frame;" \
	"$((whole + launch)) of the main thread's $java Java samples whole to Main.main; top Java: $(echo "$top" | head -3 | awk -F'\t' '{ printf "%s (%s); ", $3, $8 }')"
