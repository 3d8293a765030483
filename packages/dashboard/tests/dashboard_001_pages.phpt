--TEST--
Dashboard pages in headless Chromium: overview, a queue (dead letters listed and found by id, jobs per minute over the last hour, lag and handler charts), locks (holder, TTL, fencing token, waiters), limiters, caches, connections and servers render with their data; a payload, a lock holder and a key holding markup show as text (no element made of them); the screenshots show the page (header, charts, colours); every page carries a CSP that allows no script
--FILE--
<?php
require __DIR__ . '/_dash.inc';
$ns = rk_ns();
$c = rk_url();
$xss = '<img src=x onerror=alert(1)>';

// a queue with dead letters (one of them markup), a due job and a lagging claim
$q = new RedisKit\DelayQueue('emails', $c, ['prefix' => $ns, 'visibility_timeout' => 0.05, 'backoff' => 0, 'max_attempts' => 1]);
$q->pushMany([$xss, 'second', "bin\xff\x00ary"]);
$q->pop(3);
rk_assert(rk_until(function () use ($q) { $q->pop(1); return $q->counts()['dead'] === 3; }), 'three dead letters');
$q->push('due-now');
$ok = new RedisKit\DelayQueue('reports', $c, ['prefix' => $ns]);
$ok->push('r1');
$ok->push('r2', 3600);
$j = $ok->pop(1);
usleep(2000);
$ok->ack($j[0]['id']);
// a held lock (its holder's token is markup) with a fencing token, and a free one
$held = new RedisKit\RedisLock('invoice:7', $c, ['prefix' => $ns, 'ttl' => 600, 'watchdog' => false, 'token' => "<b>holder</b>"]);
$held->acquire();
$fence = $held->fencingToken();
$free = new RedisKit\RedisLock('nightly', $c, ['prefix' => $ns, 'watchdog' => false]);
$free->acquire();
$free->release();
$rl = new RedisKit\RateLimiter('api', 2, 60, $c, ['prefix' => $ns]);
for ($i = 0; $i < 5; $i++) $rl->attempt('user:1');
$cache = new RedisKit\RedisCache('pages', $c, ['prefix' => $ns]);
$cache->remember('home', 60, fn() => 'html');
$cache->get('home');
$cache->get('missing');

$srv = new DashServer(__DIR__ . '/_app.inc', ['RKD_CONN' => $c, 'RKD_PREFIX' => $ns]);
$dir = dirname($srv->log);
// the application works the queue in the dashboard's PHP server (its metrics are that server's)
echo "work: ", trim(dash_http('GET', $srv->url . 'work?queue=emails')[2]), "\n";

// every page answers 200 with the security headers
foreach (['overview', 'queue&name=emails', 'locks', 'limiters', 'caches', 'connections', 'server'] as $p) {
    [$st, $h] = dash_http('GET', $srv->url . "?p=$p");
    $csp = $h['content-security-policy'] ?? '';
    rk_assert($st === 200, "$p: status $st");
    rk_assert(str_starts_with($csp, "default-src 'none'; style-src 'nonce-") && !str_contains($csp, 'script-src') && !str_contains($csp, 'unsafe'),
        "$p: CSP $csp");
    rk_assert(($h['x-frame-options'] ?? '') === 'DENY' && ($h['x-content-type-options'] ?? '') === 'nosniff' && ($h['cache-control'] ?? '') === 'no-store',
        "$p: headers " . json_encode($h));
}
echo "7 pages: 200, a CSP without script, no framing, no caching\n";

// the overview, in the browser
$dom = dash_chromium($srv->url . '?p=overview', ['--dump-dom']);
echo "overview lists: ", implode(', ', array_filter(['emails', 'reports', 'api', 'pages'], fn($n) => str_contains($dom, ">$n<"))), "\n";
echo "emails has dead letters, reports is ok: ", var_export(preg_match('#>emails</a></td><td>0</td><td>1</td><td>0</td><td>3</td>.*?<span class="bad">dead letters</span>#s', $dom) === 1, true),
    " ", var_export(preg_match('#>reports</a></td><td>1</td><td>0</td><td>0</td><td>0</td>.*?<span class="good">ok</span>#s', $dom) === 1, true), "\n";
$png = "$dir/overview.png";
dash_chromium($srv->url . '?p=overview', ['--screenshot=' . $png, '--window-size=1280,900']);
$s = dash_png($png, ['#1f3b64', '#b42318', '#17803d']);
echo "overview screenshot: {$s['width']}x{$s['height']}, header bar ", var_export($s['found']['#1f3b64'] > 1000, true),
    ", red (dead letters) ", var_export($s['found']['#b42318'] > 0, true), ", green (ok) ", var_export($s['found']['#17803d'] > 0, true),
    ", more than a blank page: ", var_export($s['colors'] > 20, true), "\n";

// the queue: dead letters as text, charts, the payload found by id
$dom = dash_chromium($srv->url . '?p=queue&name=emails', ['--dump-dom']);
echo "markup payload shown as text: ", var_export(str_contains($dom, '&lt;img src=x onerror=alert(1)&gt;'), true),
    "; an img element: ", var_export(stripos($dom, '<img') !== false, true), "\n";
echo "dead letters listed: ", preg_match_all('#<td><code>[^<]*</code></td><td><form#', $dom), "; the binary one as text: ",
    var_export(str_contains($dom, "bin\u{FFFD}"), true), "; charts: ", substr_count($dom, '<svg'), "\n";
// the last hour per minute: the 5 jobs /work pushed and acked in this server, in this minute or the one before
echo "last hour: ", var_export(str_contains($dom, 'Jobs per minute, last hour (pushed 5, acked 5)'), true),
    ", bars of this minute or the last: ", var_export(preg_match('#<title>(this minute|1 min ago), acked: 5</title>|<title>this minute, acked: \d</title>#', $dom) === 1, true), "\n";
$deadIds = array_column($q->jobs('dead', null)['jobs'], 'id', 'payload');
$dom = dash_chromium($srv->url . '?p=queue&name=emails&id=' . $deadIds[$xss], ['--dump-dom']);
echo "found by id: whole payload as text: ", var_export(str_contains($dom, '<pre class="payload">&lt;img src=x onerror=alert(1)&gt;</pre>'), true),
    "; state dead: ", var_export(str_contains($dom, '<td>dead</td>'), true), "\n";
$png = "$dir/queue.png";
dash_chromium($srv->url . '?p=queue&name=emails', ['--screenshot=' . $png, '--window-size=1280,1400']);
$s = dash_png($png, ['#1f3b64', '#3b6db3', '#b42318']);
echo "queue screenshot: header ", var_export($s['found']['#1f3b64'] > 1000, true), ", chart bars ", var_export($s['found']['#3b6db3'] > 20, true),
    ", danger buttons ", var_export($s['found']['#b42318'] > 0, true), "\n";
$dom = dash_chromium($srv->url . '?p=queue&name=emails&id=nope', ['--dump-dom']);
echo "an unknown id: ", var_export(str_contains($dom, 'No job nope in any state.'), true), "\n";

// locks
$dom = dash_chromium($srv->url . '?p=locks', ['--dump-dom']);
echo "locks: holder as text ", var_export(str_contains($dom, '<code>&lt;b&gt;holder&lt;/b&gt;</code>'), true),
    ", fencing token ", var_export(str_contains($dom, "<td>$fence</td>"), true),
    ", TTL ", var_export(preg_match('#invoice:7</td><td><code>.*?</code></td><td>(\d+\.\d) s</td>#', $dom, $m) === 1 && (float)$m[1] > 0 && (float)$m[1] <= 600, true),
    ", the free one ", var_export(preg_match('#nightly</td><td><span class="muted">free</span>#', $dom) === 1, true), "\n";
// limiters, caches, connections, servers
$dom = dash_chromium($srv->url . '?p=limiters', ['--dump-dom']);
echo "limiters: ", var_export(preg_match('#<td>api</td><td>sliding_window</td><td>2 per 60 s</td>#', $dom) === 1, true), "\n";
$dom = dash_chromium($srv->url . '?p=server', ['--dump-dom']);
echo "servers: memory gauge ", var_export(str_contains($dom, 'class="gauge"'), true), ", slow log table ", var_export(str_contains($dom, '<h3>Slow log ('), true), "\n";
$png = "$dir/server.png";
dash_chromium($srv->url . '?p=server', ['--screenshot=' . $png, '--window-size=1280,900']);
$s = dash_png($png, ['#1f3b64', '#e9edf3']);
echo "server screenshot: header ", var_export($s['found']['#1f3b64'] > 1000, true), ", gauge and table ", var_export($s['found']['#e9edf3'] > 100, true), "\n";
foreach (['caches', 'connections'] as $p) {
    $dom = dash_chromium($srv->url . "?p=$p", ['--dump-dom']);
    echo "$p: ", var_export(str_contains($dom, '<table>'), true), "\n";
}
// a page that does not exist, a queue page without a name
echo "unknown page: ", dash_http('GET', $srv->url . '?p=nope')[0], ", queue without a name: ", dash_http('GET', $srv->url . '?p=queue')[0], "\n";
$held->release();
?>
--EXPECT--
work: ok
7 pages: 200, a CSP without script, no framing, no caching
overview lists: emails, reports, api, pages
emails has dead letters, reports is ok: true true
overview screenshot: 1280x900, header bar true, red (dead letters) true, green (ok) true, more than a blank page: true
markup payload shown as text: true; an img element: false
dead letters listed: 3; the binary one as text: true; charts: 3
last hour: true, bars of this minute or the last: true
found by id: whole payload as text: true; state dead: true
queue screenshot: header true, chart bars true, danger buttons true
an unknown id: true
locks: holder as text true, fencing token true, TTL true, the free one true
limiters: true
servers: memory gauge true, slow log table true
server screenshot: header true, gauge and table true
caches: true
connections: true
unknown page: 404, queue without a name: 400
