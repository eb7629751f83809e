#!/usr/bin/env bash
# rss-median.sh < output of rss-at-start.sh: per binary, the number of starts and the
# min / median of VmRSS, RssAnon and RssFile in MB.
awk '{v[$1]=v[$1] " " $3; a[$1]=a[$1] " " $5; f[$1]=f[$1] " " $7; n[$1]++}
function stat(s,   x, k, i, j, t) {
	k = split(s, x, " ")
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
	return sprintf("%.1f / %.1f", x[1] / 1024, (k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2) / 1024)
}
END { for (b in n) printf "%-12s n=%d  VmRSS %s  RssAnon %s  RssFile %s\n", b, n[b], stat(v[b]), stat(a[b]), stat(f[b]) }'
