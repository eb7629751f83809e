package pycompat

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Strftime formats t like Python's datetime.strftime on Linux (glibc, C
// locale), for the directives %Y %m %d %e %H %M %S %f %j %y %I %p %a %A %b
// %B %z %Z %% and the composites %c %x %X %D %T %F %R; an unknown directive
// is written as it is, as CPython does on Linux.
func Strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		if x, ok := composite[format[i]]; ok {
			b.WriteString(Strftime(t, x))
			continue
		}
		switch format[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'I':
			fmt.Fprintf(&b, "%02d", hour12(t.Hour()))
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}

// composite are the directives glibc expands to others in the C locale.
var composite = map[byte]string{
	'c': "%a %b %e %H:%M:%S %Y",
	'x': "%m/%d/%y",
	'X': "%H:%M:%S",
	'D': "%m/%d/%y",
	'T': "%H:%M:%S",
	'F': "%Y-%m-%d",
	'R': "%H:%M",
}

func hour12(h int) int {
	if h%12 == 0 {
		return 12
	}
	return h % 12
}

var errNoMatch = errors.New("does not match the format")

// ParseStrftime parses s as Strftime writes it with format, in loc (or at
// the offset %z gives). The format is read directive by directive, so its
// literal text is matched as it is (a Go layout would read a literal "1"
// as a month). Fields the format lacks default as in CPython's strptime
// (1900-01-01 00:00:00); %j sets the date when %m and %d are absent.
// Names (%a %A %b %B %p) must be the C locale's; %Z is skipped.
func ParseStrftime(s, format string, loc *time.Location) (time.Time, error) {
	format = expandComposites(format)
	p := strptime{s: s, year: 1900, month: 1, day: 1, yday: -1, hour12: -1}
	if err := p.parse(format); err != nil {
		return time.Time{}, fmt.Errorf("parse %q as %q: %w", s, format, err)
	}
	if p.pos != len(s) {
		return time.Time{}, fmt.Errorf("parse %q as %q: extra text %q", s, format, s[p.pos:])
	}
	if p.hour12 >= 0 {
		p.hour = p.hour12 % 12
		if p.pm {
			p.hour += 12
		}
	}
	if p.zone != nil {
		loc = p.zone
	}
	if p.yday >= 0 && !p.haveMD {
		return time.Date(p.year, 1, p.yday, p.hour, p.min, p.sec, p.usec*1000, loc), nil
	}
	t := time.Date(p.year, time.Month(p.month), p.day, p.hour, p.min, p.sec, p.usec*1000, loc)
	if t.Day() != p.day || int(t.Month()) != p.month {
		return time.Time{}, fmt.Errorf("parse %q as %q: day %d out of range for month %d", s, format, p.day, p.month)
	}
	return t, nil
}

func expandComposites(format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) {
			if x, ok := composite[format[i+1]]; ok {
				b.WriteString(x)
			} else {
				b.WriteByte('%')
				b.WriteByte(format[i+1])
			}
			i++
			continue
		}
		b.WriteByte(format[i])
	}
	return b.String()
}

// strptime is one ParseStrftime in progress.
type strptime struct {
	s                      string
	pos                    int
	year, month, day, yday int
	hour, min, sec, usec   int
	hour12                 int
	pm, haveMD             bool
	zone                   *time.Location
}

var (
	shortDays   = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	longDays    = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	shortMonths = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	longMonths  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

func (p *strptime) parse(format string) error {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			if err := p.literal(c); err != nil {
				return err
			}
			continue
		}
		i++
		var err error
		switch d := format[i]; d {
		case 'Y':
			p.year, err = p.num(4, 0, 9999)
		case 'm':
			p.month, err = p.num(2, 1, 12)
			p.haveMD = true
		case 'd':
			p.day, err = p.num(2, 1, 31)
			p.haveMD = true
		case 'e':
			if p.pos < len(p.s) && p.s[p.pos] == ' ' {
				p.pos++
				p.day, err = p.num(1, 1, 9)
			} else {
				p.day, err = p.num(2, 10, 31)
			}
			p.haveMD = true
		case 'H':
			p.hour, err = p.num(2, 0, 23)
		case 'M':
			p.min, err = p.num(2, 0, 59)
		case 'S':
			p.sec, err = p.num(2, 0, 61)
		case 'f':
			p.usec, err = p.num(6, 0, 999999)
		case 'j':
			p.yday, err = p.num(3, 1, 366)
		case 'y':
			var y int
			y, err = p.num(2, 0, 99)
			p.year = 2000 + y
			if y >= 69 {
				p.year = 1900 + y
			}
		case 'I':
			p.hour12, err = p.num(2, 1, 12)
		case 'p':
			var n int
			n, err = p.name([]string{"AM", "PM"})
			p.pm = n == 1
		case 'a':
			_, err = p.name(shortDays)
		case 'A':
			_, err = p.name(longDays)
		case 'b':
			p.month, err = p.name(shortMonths)
			p.month++
			p.haveMD = true
		case 'B':
			p.month, err = p.name(longMonths)
			p.month++
			p.haveMD = true
		case 'z':
			err = p.offset()
		case 'Z':
			for p.pos < len(p.s) && isZoneChar(p.s[p.pos]) {
				p.pos++
			}
		case '%':
			err = p.literal('%')
		default:
			// Written as it is by Strftime.
			if err = p.literal('%'); err == nil {
				err = p.literal(d)
			}
		}
		if err != nil {
			return fmt.Errorf("%%%c at %d: %w", format[i], p.pos, err)
		}
	}
	return nil
}

func (p *strptime) literal(c byte) error {
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return errNoMatch
	}
	p.pos++
	return nil
}

// num reads exactly width digits (Strftime pads every number) in [lo, hi].
func (p *strptime) num(width, lo, hi int) (int, error) {
	if p.pos+width > len(p.s) {
		return 0, errNoMatch
	}
	n := 0
	for _, c := range []byte(p.s[p.pos : p.pos+width]) {
		if c < '0' || c > '9' {
			return 0, errNoMatch
		}
		n = n*10 + int(c-'0')
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d out of range", n)
	}
	p.pos += width
	return n, nil
}

// name reads the longest of names at the current position and returns its
// index.
func (p *strptime) name(names []string) (int, error) {
	best := -1
	for i, n := range names {
		if strings.HasPrefix(p.s[p.pos:], n) && (best < 0 || len(n) > len(names[best])) {
			best = i
		}
	}
	if best < 0 {
		return 0, errNoMatch
	}
	p.pos += len(names[best])
	return best, nil
}

// offset reads %z's ±hhmm.
func (p *strptime) offset() error {
	if p.pos >= len(p.s) || (p.s[p.pos] != '+' && p.s[p.pos] != '-') {
		return errNoMatch
	}
	sign := 1
	if p.s[p.pos] == '-' {
		sign = -1
	}
	p.pos++
	h, err := p.num(2, 0, 23)
	if err != nil {
		return err
	}
	m, err := p.num(2, 0, 59)
	if err != nil {
		return err
	}
	p.zone = time.FixedZone("", sign*(h*3600+m*60))
	return nil
}

func isZoneChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-'
}
