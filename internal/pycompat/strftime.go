package pycompat

import (
	"fmt"
	"strings"
	"time"
)

// Strftime formats t like Python's datetime.strftime, for the directives
// the runtime-state reminder uses (%Y %m %d %H %M %S %f %j %y %I %p %a %A
// %b %B %z %Z %%); an unknown directive is written as it is, as CPython
// does on Linux.
func Strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
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
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
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

// ParseStrftime parses s written with format (the directives Strftime
// writes as numbers) in loc.
func ParseStrftime(s, format string, loc *time.Location) (time.Time, error) {
	layout := strings.NewReplacer(
		"%Y", "2006", "%m", "01", "%d", "02", "%H", "15", "%M", "04", "%S", "05",
		"%f", "000000", "%y", "06", "%b", "Jan", "%B", "January", "%a", "Mon", "%A", "Monday",
		"%I", "03", "%p", "PM", "%z", "-0700", "%Z", "MST", "%%", "%",
	).Replace(format)
	return time.ParseInLocation(layout, s, loc)
}
