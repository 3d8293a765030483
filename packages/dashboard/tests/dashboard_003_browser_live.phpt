--TEST--
Dashboard driven in headless Chromium (chromedriver) during live traffic: two producer and two consumer processes work a queue while the dashboard is served by another process of the same pool (one metrics segment); a stranger gets 403, the operator sees the overview and the queue with the counts the test produced (pushed, acked, dead) and the per-minute chart; a poison payload made of markup stays text and opens no dialog; a POST from the page without the CSRF token is refused and changes nothing; clicking Requeue on a dead job (after "the bug is fixed") hands it to a consumer that acks it; a screenshot of every page shows the page
--SKIPIF--
<?php if (!is_executable('/usr/bin/chromedriver')) die('skip chromedriver (Debian chromium-driver) is not installed'); ?>
--EXTENSIONS--
posix
pcntl
gd
--FILE--
<?php
require __DIR__ . '/_dash.inc';
$ns = rk_ns();
$c = rk_url();
$dir = (getenv('RK_RUN_DIR') ?: sys_get_temp_dir()) . '/dash-live-' . getmypid();
@mkdir($dir, 0777, true);
$xss = 'poison <img src=x onerror=alert(1)>';
$opts = ['prefix' => $ns, 'max_attempts' => 1, 'backoff' => 0];
touch("$dir/broken");

// the pool: the dashboard in one process, producers and consumers in others
[$srv, $url] = dash_fork_server([
    'authorize' => fn(RedisKit\Dashboard\Request $r): bool => ($r->cookies['who'] ?? '') === 'operator',
    'connection' => $c,
    'prefix' => $ns,
    'title' => 'rediskit live test',
]);
$kids = [];
foreach ([0, 1] as $w) {          // consumers: ack, fail poison jobs while the bug is there
    $kids["c$w"] = $pid = pcntl_fork();
    if ($pid === 0) {
        $q = new RedisKit\DelayQueue('orders', $c, $opts + ['consumer' => "consumer-$w"]);
        while (!file_exists("$dir/stop")) {
            foreach ($q->pop(5, 0.2) as $job) {
                if (str_starts_with($job['payload'], 'poison') && file_exists("$dir/broken")) {
                    $q->retry($job['id'], 0);
                } else {
                    usleep(2000);
                    if ($q->ack($job['id'])) file_put_contents("$dir/acked.$w", $job['id'] . "\n", FILE_APPEND);
                }
            }
        }
        exit(0);
    }
}
foreach ([0, 1] as $w) {          // producers: 60 jobs each over about a second and a half
    $kids["p$w"] = $pid = pcntl_fork();
    if ($pid === 0) {
        $q = new RedisKit\DelayQueue('orders', $c, $opts);
        for ($i = 0; $i < 60; $i++) {
            $q->push("order $w-$i");
            if ($i === 30) $q->push($w === 0 ? $xss : 'poison 2');
            usleep(25000);
        }
        exit(0);
    }
}

$b = new WebDriver($dir);
// a stranger: 403, nothing shown
$b->go($url . '?p=overview');
echo "stranger: ", var_export(str_contains($b->source(), 'Forbidden') && !str_contains($b->source(), 'orders'), true), "\n";
$b->cookie('who', 'operator');
// the overview while the work runs
$q = new RedisKit\DelayQueue('orders', $c, $opts);
rk_until(fn() => $q->inspect()['scheduled'] + $q->inspect()['due'] + $q->inspect()['in_flight'] + $q->inspect()['dead'] > 0 || file_exists("$dir/acked.0"));
$b->go($url . '?p=overview');
echo "overview during the work lists orders: ", var_export(str_contains($b->source(), '>orders</a>'), true), "\n";
$shots = ['overview-live' => null];
$b->screenshot("$dir/overview-live.png");

// the work done: 120 orders acked, the two poison jobs dead
foreach (['p0', 'p1'] as $k) pcntl_waitpid($kids[$k], $st);
$acked = fn() => count(array_filter(explode("\n", implode('', array_map('file_get_contents', glob("$dir/acked.*") ?: [])))));
rk_assert(rk_until(function () use ($q, $acked) {
    $i = $q->inspect();
    return $i['dead'] === 2 && $i['due'] + $i['scheduled'] + $i['in_flight'] === 0 && $acked() === 120;
}, 30), 'the work ends: ' . json_encode($q->inspect()) . ', acked ' . $acked());
// a lock held, a limiter at its limit, a cache read: the overview shows every kind
$lock = new RedisKit\RedisLock('nightly-report', $c, ['prefix' => $ns, 'ttl' => 600, 'watchdog' => false]);
$lock->acquire();
$rl = new RedisKit\RateLimiter('api', 5, 60, $c, ['prefix' => $ns]);
for ($i = 0; $i < 8; $i++) $rl->attempt($i < 6 ? 'user:1' : 'user:2');   // one denied
$cache = new RedisKit\RedisCache('pages', $c, ['prefix' => $ns]);
$cache->remember('home', 60, fn() => 'html');
$cache->get('home');
$b->go($url . '?p=overview');
echo "overview: orders 0 scheduled, 0 due, 0 in flight, 2 dead: ",
    var_export(preg_match('#>orders</a></td><td>0</td><td>0</td><td>0</td><td>2</td>#', $b->source()) === 1, true), "\n";
$b->screenshot("$dir/overview.png");
echo "overview lists the lock, the limiter, the cache: ", var_export(str_contains($b->source(), '<h2>Locks</h2><p>1 recorded.') && str_contains($b->source(), '<td>api</td>')
    && str_contains($b->source(), '<td>pages</td>'), true), "\n";

// the queue: the pool's counts, the chart, the poison payload as text
$b->go($url . '?p=queue&name=orders');
$src = $b->source();
echo "queue counts (this pool): ", var_export(preg_match('#<td>122</td><td>(\d+)</td><td>120</td><td>(\d+)</td><td>\d+</td><td>2</td>#', $src, $m) === 1, true),
    ", claimed ", (int)$m[1], " = 120 acked + 2 failed, retried ", (int)$m[2], " (a retry of the last attempt dead-letters)\n";
echo "per minute: ", var_export(str_contains($src, 'Jobs per minute, last hour (pushed 122, acked 120)'), true), "\n";
echo "poison payload as text: ", var_export(str_contains($src, 'poison &lt;img src=x onerror=alert(1)&gt;'), true),
    "; an img element: ", var_export(stripos($src, '<img') !== false, true), "; a dialog: ", var_export($b->dialog(), true), "\n";
$b->screenshot("$dir/queue.png");

// a form posted from the page without the CSRF token (the page's CSP lets
// no script run and nothing be fetched: the test's script comes through
// the driver): refused, nothing deleted
$b->script('const f = document.createElement("form"); f.method = "post"; f.action = location.href;
    for (const [k, v] of [["queue", "orders"], ["action", "delete_all"]]) { const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i); }
    document.body.appendChild(f); f.submit();');
rk_until(fn() => !str_contains($b->source(), 'Jobs per minute'), 10);
echo "POST without the token: ", var_export(str_contains($b->source(), 'Forbidden: bad CSRF token'), true), ", dead still ", $q->inspect()['dead'], "\n";
$b->go($url . '?p=queue&name=orders');

// the bug fixed, the operator requeues the markup one by clicking
unlink("$dir/broken");
$dead = array_column($q->jobs('dead')['jobs'], 'id', 'payload');
$id = $dead[$xss];
$b->click("//tr[td/a[text()='$id']]//button[text()='Requeue']");
// the form's POST and the page it answers with load after the click returns
echo "after the click: ", var_export(rk_until(fn() => str_contains($b->source(), '1 requeued'), 10), true), ", dead ", $q->inspect()['dead'], "\n";
$ackedIds = fn() => array_filter(explode("\n", implode('', array_map('file_get_contents', glob("$dir/acked.*") ?: []))));
echo "claimed and acked by a consumer: ", var_export(rk_until(fn() => in_array($id, $ackedIds(), true), 10), true), "\n";

// every page: a screenshot with the header bar, text and colours
foreach (['locks', 'limiters', 'caches', 'connections', 'server'] as $p) {
    $b->go($url . "?p=$p");
    $b->screenshot("$dir/$p.png");
}
$blank = [];
foreach (['overview-live', 'overview', 'queue', 'locks', 'limiters', 'caches', 'connections', 'server'] as $p) {
    $s = dash_png("$dir/$p.png", ['#1f3b64']);
    if (!($s['width'] === 1280 && $s['found']['#1f3b64'] > 1000 && $s['colors'] > 20)) $blank[] = "$p " . json_encode($s);
}
echo "8 screenshots, none blank: ", var_export($blank === [], true), $blank ? ' ' . implode('; ', $blank) : '', "\n";
echo "no dialog on any page: ", var_export($b->dialog(), true), "\n";

touch("$dir/stop");
foreach (['c0', 'c1'] as $k) {
    pcntl_waitpid($kids[$k], $st);
    rk_assert(pcntl_wexitstatus($st) === 0, "consumer $k");
}
?>
--EXPECT--
stranger: true
overview during the work lists orders: true
overview: orders 0 scheduled, 0 due, 0 in flight, 2 dead: true
overview lists the lock, the limiter, the cache: true
queue counts (this pool): true, claimed 122 = 120 acked + 2 failed, retried 0 (a retry of the last attempt dead-letters)
per minute: true
poison payload as text: true; an img element: false; a dialog: NULL
POST without the token: true, dead still 2
after the click: true, dead 1
claimed and acked by a consumer: true
8 screenshots, none blank: true
no dialog on any page: NULL
