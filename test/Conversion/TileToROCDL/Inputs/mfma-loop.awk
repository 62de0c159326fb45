# mfma-loop.awk - the loop of a kernel that holds its MFMA instructions.
#
# Reads `llvm-objdump -d` output of one kernel and prints the instructions
# from the target of the first backward branch whose range holds every
# v_mfma up to that branch: the loop body, for FileCheck to count in.
# Exits 1, printing why, when no branch closes a loop around all of them.
# (Plain awk: no strtonum, so hex() parses addresses.)
/^[0-9a-f]+ <[a-z_]+>:$/ { base = hex($1) }
{
  if (match($0, /\/\/ [0-9A-F]+:/)) {
    addr = hex(substr($0, RSTART + 3, RLENGTH - 4))
    n++; A[n] = addr; L[n] = $0
    if ($1 ~ /^v_mfma/) { if (!first) first = addr; last = addr }
    if ($1 ~ /^s_(cbranch|branch)/ && match($0, /<[a-z_]+\+0x[0-9a-f]+>/)) {
      t = substr($0, RSTART, RLENGTH); sub(/.*\+/, "", t); sub(/>/, "", t)
      B[n] = hex(t)
    }
  }
}
END {
  best = -1
  for (i = 1; i <= n; i++)
    if (i in B && B[i] + base <= first && A[i] >= last) { best = i; break }
  if (!first) { print "no v_mfma"; exit 1 }
  if (best < 0) { print "no loop holds every v_mfma"; exit 1 }
  for (i = 1; i <= best; i++) if (A[i] >= B[best] + base) print L[i]
}

# The value of hexadecimal `s` (with or without 0x).
function hex(s,   i, v, c) {
  sub(/^0x/, "", s); v = 0; s = tolower(s)
  for (i = 1; i <= length(s); i++) {
    c = index("0123456789abcdef", substr(s, i, 1)) - 1
    v = v * 16 + c
  }
  return v
}
