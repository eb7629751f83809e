package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentscope-go/agentscope/model/scripted"
)

// clientEnv turns the test binary into the SSE client process of the
// *ClientProcess benchmarks, for the server at this URL (see TestMain).
const clientEnv = "AGENTSCOPE_BENCH_CLIENT_URL"

// runBenchClient is the client process: for each line of stdin — a session
// id, the type of the frame that ends the run, and a POST /chat/ body,
// tab-separated — it opens the session's stream, posts the body, notes
// when the first frame arrives, reads to the end frame, closes the stream,
// and prints the microseconds from the POST to the first frame (or
// "error: …"). Its status is 0 once stdin ends.
func runBenchClient(url string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		parts := strings.SplitN(in.Text(), "\t", 3)
		if len(parts) != 3 {
			fmt.Println("error: bad task")
			continue
		}
		us, err := clientTask(url, parts[0], parts[1], parts[2])
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(us)
	}
	return 0
}

func clientTask(url, sid, end, body string) (int64, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/sessions/"+sid+"/stream", nil)
	req.Header.Set("X-User-ID", user)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return 0, fmt.Errorf("stream: %s", res.Status)
	}
	first, ended := make(chan time.Time, 1), make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(res.Body, 64<<10)
		marker := `"type":"` + end + `"`
		n := 0
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				ended <- err
				return
			}
			if len(line) > 6 && string(line[:6]) == "data: " {
				if n == 0 {
					first <- time.Now()
				}
				n++
				if strings.Contains(string(line), marker) {
					ended <- nil
					return
				}
			}
		}
	}()
	post, _ := http.NewRequest("POST", url+"/chat/", strings.NewReader(body))
	post.Header.Set("Content-Type", "application/json")
	post.Header.Set("X-User-ID", user)
	t0 := time.Now()
	pr, err := http.DefaultClient.Do(post)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, pr.Body)
	pr.Body.Close()
	if pr.StatusCode != 200 {
		return 0, fmt.Errorf("chat: %s", pr.Status)
	}
	// The reader sends on first before it can send on ended.
	if err := <-ended; err != nil {
		return 0, err
	}
	select {
	case t1 := <-first:
		return t1.Sub(t0).Microseconds(), nil
	default:
		return 0, fmt.Errorf("the stream ended without a frame")
	}
}

// clientProcess is the parent's end of a client process.
type clientProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startClientProcess(b *testing.B, url string) *clientProcess {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), clientEnv+"="+url)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &clientProcess{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	b.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("client process: %v", err)
		}
	})
	return c
}

// chat has the client process post body on sid and returns the time from
// its POST to the first frame its stream read.
func (c *clientProcess) chat(b *testing.B, sid, end, body string) time.Duration {
	if _, err := fmt.Fprintf(c.in, "%s\t%s\t%s\n", sid, end, strings.ReplaceAll(body, "\n", " ")); err != nil {
		b.Fatal(err)
	}
	if !c.out.Scan() {
		b.Fatalf("client process: %v", c.out.Err())
	}
	us, err := strconv.ParseInt(c.out.Text(), 10, 64)
	if err != nil {
		b.Fatalf("client process: %s", c.out.Text())
	}
	return time.Duration(us) * time.Microsecond
}

// BenchmarkChatFirstEventClientProcess is BenchmarkChatFirstEvent with the
// client (its stream and its POST) in a process of its own, as a real
// client is: in the same process, the client's goroutine reads the frame
// only when the server's goroutines leave it a CPU.
func BenchmarkChatFirstEventClientProcess(b *testing.B) {
	e := newEnv(b, nil, nil)
	c := startClientProcess(b, e.hs.URL)
	var ds []time.Duration
	for range b.N {
		sid := e.createSession()
		e.model.Append(scripted.Stream(scripted.Text("Hi.")))
		ds = append(ds, c.chat(b, sid, "REPLY_END", fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sid, userMsg("hi"))))
	}
	percentiles(b, ds)
}

// BenchmarkResumeClientProcess is BenchmarkResume with the client of the
// resume in a process of its own.
func BenchmarkResumeClientProcess(b *testing.B) {
	e := newEnv(b, nil, nil)
	c := startClientProcess(b, e.hs.URL)
	var ds []time.Duration
	for range b.N {
		sid := e.createSession()
		s := e.benchStream(b, sid, "REQUIRE_USER_CONFIRM")
		e.model.Append(noteTurn, doneTurn)
		if r := e.chat(sid, userMsg("note")); r.code != 200 {
			b.Fatal(r.body)
		}
		<-s.first
		<-s.ended
		s.close()
		confirm := confirmJSON(b, e, sid, true)
		ds = append(ds, c.chat(b, sid, "REPLY_END", fmt.Sprintf(`{"agent_id":"a1","session_id":%q,"input":%s}`, sid, confirm)))
	}
	percentiles(b, ds)
}
