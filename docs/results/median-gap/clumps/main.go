// Command clumps is an open-model load like vegeta's, except that its requests leave in clumps: every
// clump/rate seconds, clump requests at the same instant. It isolates the shape of Locust's arrivals (several
// requests in one millisecond) from Locust's own CPU, which vegeta's evenly paced arrivals cannot.
// Its CSV has vegeta's columns: start (ns since the epoch), HTTP status, latency (ns).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

type answer struct {
	started time.Time
	status  int
	latency time.Duration
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/order/stock/limit", "where to POST")
	bodyFile := flag.String("body", "", "the JSON body")
	rate := flag.Float64("rate", 500, "requests per second")
	clump := flag.Int("clump", 5, "requests sent at the same instant")
	seconds := flag.Float64("seconds", 60, "how long")
	out := flag.String("out", "clumps.csv", "results")
	flag.Parse()
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		log.Fatal(err)
	}
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 2000, MaxIdleConnsPerHost: 2000}}
	period := time.Duration(float64(*clump) / *rate * float64(time.Second))
	ticks := int(*seconds * *rate / float64(*clump))
	answers := make([]answer, ticks**clump)
	var wg sync.WaitGroup
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for t := 0; t < ticks; t++ {
		for i := 0; i < *clump; i++ {
			wg.Add(1)
			go func(slot int) {
				defer wg.Done()
				answers[slot] = post(client, *url, body)
			}(t**clump + i)
		}
		<-ticker.C
	}
	wg.Wait()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for _, a := range answers {
		fmt.Fprintf(f, "%d,%d,%d\n", a.started.UnixNano(), a.status, a.latency.Nanoseconds())
	}
}

func post(client *http.Client, url string, body []byte) answer {
	started := time.Now()
	response, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return answer{started, 0, time.Since(started)}
	}
	io.Copy(io.Discard, response.Body)
	response.Body.Close()
	return answer{started, response.StatusCode, time.Since(started)}
}
