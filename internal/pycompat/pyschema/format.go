package pyschema

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// checkFormat reports whether s is a valid instance of the named format,
// and whether the format is one drafts 4–7 define and this package checks
// (date-time, date, time, email, hostname, ipv4, ipv6, uri,
// uri-reference, json-pointer, relative-json-pointer, regex). The others
// (idn-*, iri*, uri-template, unknown names) are not asserted.
func checkFormat(format, s string) (ok, known bool) {
	switch format {
	case "date-time":
		d, t, found := strings.Cut(s, "T")
		if !found {
			d, t, found = strings.Cut(s, "t")
		}
		return found && isDate(d) && isTime(t), true
	case "date":
		return isDate(s), true
	case "time":
		return isTime(s), true
	case "email":
		local, domain, found := strings.Cut(s, "@")
		return found && local != "" && len(local) <= 64 && !strings.ContainsAny(local, " @") &&
			(isHostname(domain) || isBracketedIP(domain)), true
	case "hostname":
		return isHostname(s), true
	case "ipv4":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4(), true
	case "ipv6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == "", true
	case "uri":
		u, err := url.Parse(s)
		return err == nil && u.IsAbs() && !strings.ContainsAny(s, " \\"), true
	case "uri-reference":
		_, err := url.Parse(s)
		return err == nil && !strings.ContainsAny(s, " \\"), true
	case "json-pointer":
		return isJSONPointer(s), true
	case "relative-json-pointer":
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || (i > 1 && s[0] == '0') {
			return false, true
		}
		return s[i:] == "#" || isJSONPointer(s[i:]), true
	case "regex":
		_, err := regexp.Compile(s)
		return err == nil, true
	}
	return true, false
}

// isDate is RFC 3339's full-date: YYYY-MM-DD, a day that exists.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// isTime is RFC 3339's full-time: hh:mm:ss[.frac] and Z or ±hh:mm; a
// leap second (:60) is allowed.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, m, sec := num2(s[0:2]), num2(s[3:5]), num2(s[6:8])
	if h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	switch {
	case rest == "Z" || rest == "z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, om := num2(rest[1:3]), num2(rest[4:6])
		return oh >= 0 && oh <= 23 && om >= 0 && om <= 59
	}
	return false
}

func num2(s string) int {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return -1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// isHostname is RFC 1123: dot-separated labels of letters, digits and
// hyphens, 1–63 characters each, not starting or ending with a hyphen,
// 253 characters in all.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func isBracketedIP(s string) bool {
	inner, ok := strings.CutPrefix(s, "[")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, "]")
	if !ok {
		return false
	}
	inner = strings.TrimPrefix(inner, "IPv6:")
	_, err := netip.ParseAddr(inner)
	return err == nil
}

// isJSONPointer is RFC 6901: empty, or "/"-prefixed tokens in which "~"
// is only "~0" or "~1".
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}
