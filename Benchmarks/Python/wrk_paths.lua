-- wrk script of the serve rows: every request takes the next path of a list, so no two
-- requests in flight ask for the same URL (nothing coalesces, nothing is shared).
--
--   wrk -t T -c C -d D --timeout 30s -s wrk_paths.lua http://127.0.0.1:PORT -- PATHS_FILE T
--
-- PATHS_FILE holds one path per line. Thread i of T takes lines i, i+T, i+2T, … and wraps
-- around at the end (T is passed again because a thread's script cannot see it). At the end one JSON line goes to stdout: the summary's counts and
-- latency percentiles in microseconds.

local threads = {}

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

function init(args)
    paths = {}
    for line in io.lines(args[1]) do
        if line ~= "" then
            table.insert(paths, line)
        end
    end
    nthreads = tonumber(args[2]) or 1
    index = id
end

function request()
    local path = paths[(index % #paths) + 1]
    index = index + nthreads
    return wrk.format("GET", path)
end

function done(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        '{"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,' ..
        '"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
        summary.requests, summary.duration, summary.bytes, errors.connect, errors.read, errors.write,
        errors.status, errors.timeout, latency:percentile(50), latency:percentile(99), latency.max))
end
