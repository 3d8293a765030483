--TEST--
RateLimiter sliding_window: 20 processes hammering one key never get more than the limit allowed in any window of its length (every allowed unit's server time is read back from the log, so every window is checked)
--CONFLICTS--
all
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--FILE--
<?php
require __DIR__ . '/_rate.inc';
use RedisKit\RateLimiter;

$ns = rk_ns();
$limit = 10;
// µs; the observer below must run at least every half window, so an
// emulated platform stretches the window (and the run) by its time scale
$W = (int)(400000 * rk_time_scale());
$l = new RateLimiter('h', $limit, $W / 1e6, rk_conn_scaled(rk_url()), ['prefix' => $ns, 'local_block' => false]);
$log = $ns . 'h:sw:{k}';
$arch = $ns . 'archive';

// The observer copies every entry of the log to an archive list, atomically,
// more often than entries can leave it (an entry stays at least a window).
// It needs a core every few milliseconds for 2 s: the test runs alone
// (CONFLICTS: all), not beside other tests' dozens of busy processes, which
// on a 2-core machine once kept it waiting more than half a window.
$copy = <<<'LUA'
local l = redis.call('LRANGE', KEYS[1], 0, -1)
local last = tonumber(redis.call('GET', KEYS[3]) or '-1')
local lastcnt = tonumber(redis.call('GET', KEYS[4]) or '0')
local eq = 0
for _, v in ipairs(l) do
  local n = tonumber(v)
  if n > last then redis.call('RPUSH', KEYS[2], v) elseif n == last then eq = eq + 1 end
end
for i = lastcnt + 1, eq do redis.call('RPUSH', KEYS[2], string.format('%.0f', last)) end
if #l > 0 then
  local tail = tonumber(l[#l])
  local c = 0
  for i = #l, 1, -1 do if tonumber(l[i]) == tail then c = c + 1 else break end end
  if tail == last and lastcnt > c then c = lastcnt end
  redis.call('SET', KEYS[3], string.format('%.0f', tail))
  redis.call('SET', KEYS[4], c)
end
local t = redis.call('TIME')
redis.call('RPUSH', KEYS[5], string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2])))
return 1
LUA;
$okeys = [$log, $arch, "{$ns}o:last", "{$ns}o:cnt", "{$ns}o:passes"];

$raw = new RkRaw();
$end = rate_now($raw) + 5 * $W;
$observer = pcntl_fork();
if ($observer === 0) {
    $r = new RkRaw();
    do {
        $r->cmd('EVAL', $copy, '5', ...$okeys);
        usleep(10000);
    } while ($r->cmd('EXISTS', "{$ns}stop") === 0);
    $r->cmd('EVAL', $copy, '5', ...$okeys);
    exit(0);
}
$kids = [];
for ($c = 0; $c < 20; $c++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        // below the observer (and the server): on a loaded 2-core machine 20
        // busy clients at its priority could starve it past half a window
        pcntl_setpriority(10);
        $r = new RkRaw();
        $n = 0;
        while (rate_now($r) < $end) {
            for ($i = 0; $i < 5; $i++) {
                $n += $l->allow('k') ? 1 : 0;
            }
        }
        $r->cmd('INCRBY', "{$ns}allowed", (string)$n);
        exit(0);
    }
    $kids[] = $pid;
}
foreach ($kids as $pid) {
    pcntl_waitpid($pid, $st);
}
$raw->cmd('SET', "{$ns}stop", '1');
pcntl_waitpid($observer, $st);

$times = array_map('intval', $raw->cmd('LRANGE', $arch, '0', '-1'));
$allowed = (int)$raw->cmd('GET', "{$ns}allowed");
// the observer never fell behind: no two passes (server time) half a window
// apart or more; a gap is printed with where it happened and the load
$passes = array_map('intval', $raw->cmd('LRANGE', "{$ns}o:passes", '0', '-1'));
$gaps = 0;
for ($i = 1, $n = count($passes); $i < $n; $i++) {
    if ($passes[$i] - $passes[$i - 1] >= $W / 2) {
        $gaps++;
        printf("observer gap of %d ms, %d ms into the run (pass %d of %d), load %s", intdiv($passes[$i] - $passes[$i - 1], 1000), intdiv($passes[$i - 1] - $passes[0], 1000), $i, $n, file_get_contents('/proc/loadavg'));
    }
}
var_dump($gaps);
var_dump(count($times) === $allowed);                       // the archive holds every allowed unit
var_dump($allowed >= 2 * $limit);                            // several windows' worth were allowed
$sorted = $times;
sort($sorted);
var_dump($sorted === $times);                               // the log is in time order
$max = 0;
for ($i = 0, $j = 0, $n = count($times); $i < $n; $i++) {
    while ($j < $n && $times[$j] < $times[$i] + $W) $j++;
    $max = max($max, $j - $i);                              // units in [t_i, t_i + W)
}
var_dump($max <= $limit, $max === $limit);
?>
--EXPECT--
int(0)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
