--TEST--
Dashboard security and actions: nothing shown or done when the authorization callback says no (every page, every action, nothing changed in Redis); an action needs a POST with the CSRF token of the cookie it was given (missing, wrong, cross-site and foreign-Origin posts are refused, logged, and change nothing), and a real cross-site form in Chromium changes nothing; with the token: requeue one, delete one, requeue all, delete all, pause, resume, purge (only when confirmed), each logged through PSR-3 with its result; a queue the registry does not list is refused; a bad option is a ValueError
--FILE--
<?php
require __DIR__ . '/_dash.inc';
use RedisKit\Dashboard\Dashboard;

$ns = rk_ns();
$c = rk_url();
$q = new RedisKit\DelayQueue('jobs', $c, ['prefix' => $ns, 'visibility_timeout' => 0.05, 'backoff' => 0, 'max_attempts' => 1]);
$deadNow = function (int $n) use ($q) {
    $q->pushMany(array_map(fn($i) => "job $i", range(1, $n)));
    $q->pop($n);
    // every job claimed and lapsed: all dead, none left to die later
    rk_assert(rk_until(function () use ($q) {
        $q->pop(1);
        $c = $q->counts();
        return $c['scheduled'] + $c['due'] + $c['in_flight'] === 0;
    }), "all dead");
};
$deadNow(4);
$srv = new DashServer(__DIR__ . '/_app.inc', ['RKD_CONN' => $c, 'RKD_PREFIX' => $ns, 'RKD_SECRET' => str_repeat('s', 32)]);
$state = fn() => json_encode([$q->counts(), $q->isPaused()]);
$before = $state();

// 1. the authorization callback says no: nothing shown, nothing done
$refused = [];
foreach (['overview', 'queue&name=jobs', 'locks', 'limiters', 'caches', 'connections', 'server'] as $p) {
    [$st, $h, $body] = dash_http('GET', $srv->url . "?p=$p&as=stranger");
    $refused[] = $st === 403 && trim($body) === 'Forbidden' && !isset($h['set-cookie'][0]);
}
echo "stranger, 7 pages: ", count(array_filter($refused)), " refused with nothing but 'Forbidden'\n";
$s = dash_session($srv->url, '?p=queue&name=jobs');
$cookie = ['Cookie' => "rediskit_csrf={$s['cookie']}"];
foreach (['requeue_all', 'delete_all', 'purge', 'pause'] as $a) {
    [$st] = dash_http('POST', $srv->url . '?p=queue&name=jobs', $cookie, ['_token' => $s['token'], 'queue' => 'jobs', 'action' => $a, 'confirm' => 'yes', 'as' => 'stranger']);
    echo "stranger, $a with a valid token: $st\n";
}
echo "nothing changed: ", var_export($state() === $before, true), "\n";

// 2. CSRF
echo "a session: cookie ", var_export(strlen($s['cookie']) === 43, true), ", token (an HMAC of it) ", var_export($s['token'] === hash_hmac('sha256', $s['cookie'], str_repeat('s', 32)), true), "\n";
[$st, $h] = dash_http('GET', $srv->url);
echo "the cookie: ", preg_replace('/^rediskit_csrf=[^;]+/', 'rediskit_csrf=...', $h['set-cookie'][0]), "\n";
$post = fn(array $headers, array $form) => dash_http('POST', $srv->url . '?p=queue&name=jobs', $headers, $form + ['queue' => 'jobs', 'action' => 'delete_all']);
foreach ([
    'no cookie' => [[], ['_token' => $s['token']]],
    'no token' => [$cookie, []],
    'a wrong token' => [$cookie, ['_token' => str_repeat('0', 64)]],
    'the cookie as token' => [$cookie, ['_token' => $s['cookie']]],
    'a cross-site request' => [$cookie + ['Sec-Fetch-Site' => 'cross-site'], ['_token' => $s['token']]],
    'another Origin' => [$cookie + ['Origin' => 'http://evil.example'], ['_token' => $s['token']]],
] as $what => [$headers, $form]) {
    [$st, , $body] = $post($headers, $form);
    echo "$what: $st ", trim($body), "\n";
}
echo "nothing changed: ", var_export($state() === $before, true), "\n";
// a GET never acts
dash_http('GET', $srv->url . '?p=queue&name=jobs&action=delete_all&queue=jobs&_token=' . $s['token'], $cookie);
echo "a GET with the fields: nothing changed: ", var_export($state() === $before, true), "\n";

// a real browser that has the dashboard open, then visits another site (another
// port: another origin) whose page makes it post to the dashboard, cookie included
$profile = (getenv('RK_RUN_DIR') ?: sys_get_temp_dir()) . '/chromium-victim-' . getmypid();
dash_chromium($srv->url . '?p=queue&name=jobs', ['--dump-dom'], $profile);
$evil = new DashServer(__DIR__ . '/_attacker.inc', ['RKD_TARGET' => $srv->url, 'RKD_QUEUE' => 'jobs']);
$dom = dash_chromium($evil->url, ['--dump-dom'], $profile);
exec('rm -rf ' . escapeshellarg($profile));
echo "Chromium, another site's form: ", var_export(str_contains($dom, 'Forbidden'), true), "; nothing changed: ", var_export($state() === $before, true), "\n";

// 3. actions with the token (the origin's own page)
$act = function (string $action, array $extra = []) use ($srv, $cookie, $s) {
    [$st, $h] = dash_http('POST', $srv->url . '?p=queue&name=jobs', $cookie + ['Origin' => rtrim($srv->url, '/'), 'Sec-Fetch-Site' => 'same-origin'],
        ['_token' => $s['token'], 'queue' => 'jobs', 'action' => $action] + $extra);
    parse_str(parse_url($h['location'] ?? '', PHP_URL_QUERY) ?? '', $loc);
    return "$st " . ($loc['done'] ?? ($h['location'] ?? ''));
};
$dead = array_column($q->jobs('dead', null)['jobs'], 'id');
echo "requeue one: ", $act('requeue', ['id' => $dead[0]]), "; dead ", $q->counts()['dead'], ", due ", $q->counts()['due'], "\n";
echo "delete one: ", $act('delete', ['id' => $dead[1]]), "; dead ", $q->counts()['dead'], "\n";
echo "delete one without an id: ", $act('delete'), "\n";
echo "requeue all: ", $act('requeue_all'), "; dead ", $q->counts()['dead'], ", due ", $q->counts()['due'], "\n";
$deadNow(2);
$n = $q->counts()['dead'];
echo "delete all: ", var_export($act('delete_all') === "303 delete_all: $n deleted", true), "; dead ", $q->counts()['dead'], "\n";
echo "pause: ", $act('pause'), "; paused ", var_export($q->isPaused(), true), "; again: ", $act('pause'), "\n";
echo "resume: ", $act('resume'), "; paused ", var_export($q->isPaused(), true), "\n";
$q->push('scheduled', 600);
$q->push('due');
echo "purge unconfirmed: ", $act('purge'), "; jobs left: ", var_export(array_sum(array_slice($q->counts(), 0, 4)) > 0, true), "\n";
echo "purge: ", $act('purge', ['confirm' => 'yes']), "; jobs left ", array_sum(array_slice($q->counts(), 0, 4)), "\n";
echo "an unknown action: ", $act('flushall'), "\n";
// a queue the registry does not list (never used): refused
[$st, , $body] = dash_http('POST', $srv->url . '?p=queue&name=other', $cookie, ['_token' => $s['token'], 'queue' => 'nothing-here', 'action' => 'purge', 'confirm' => 'yes']);
echo "a queue not in the registry: $st ", trim($body), "\n";
// the page after an action shows its result as text
[$st, , $body] = dash_http('GET', $srv->url . '?p=queue&name=jobs&done=' . rawurlencode('<script>x</script>'), $cookie);
echo "the result shown escaped: ", var_export(str_contains($body, '<p class="flash">&lt;script&gt;x&lt;/script&gt;</p>'), true), "\n";

// 4. the PSR-3 log
$log = array_map(fn($l) => json_decode($l, true), file($srv->log, FILE_IGNORE_NEW_LINES));
$warn = array_filter($log, fn($l) => $l['level'] === 'warning');
$info = array_values(array_filter($log, fn($l) => $l['level'] === 'info'));
echo "logged refusals: ", count($warn), " (", implode(', ', array_unique(array_map(fn($l) => preg_replace('/^.*\((.*)\)$/', '$1', $l['message']), $warn))), ")\n";
echo "logged actions: ", implode(', ', array_map(fn($l) => $l['context']['action'] . ' => ' . $l['context']['result'], $info)), "\n";
echo "with the client and the id: ", var_export($info[0]['context']['client_ip'] === '127.0.0.1' && $info[0]['context']['id'] === $dead[0], true), "\n";

// 5. options
foreach ([[], ['authorize' => 'yes'], ['authorize' => fn() => true, 'secret' => 'short'], ['authorize' => fn() => true, 'colour' => 'red'],
          ['authorize' => fn() => true, 'logger' => new stdClass()], ['authorize' => fn() => true, 'csrf' => ['field' => '_token', 'token' => 'short']]] as $o) {
    echo rk_ex(rk_catch(fn() => new Dashboard($o))), "\n";
}
// a callback that throws, or answers anything but true, refuses
foreach ([fn() => throw new RuntimeException('x'), fn() => 1, fn() => 'yes'] as $f) {
    echo (new Dashboard(['authorize' => $f, 'connection' => $c]))->handle(new RedisKit\Dashboard\Request('GET'))->status, " ";
}
echo "\n";
$q->purge();
?>
--EXPECTF--
stranger, 7 pages: 7 refused with nothing but 'Forbidden'
stranger, requeue_all with a valid token: 403
stranger, delete_all with a valid token: 403
stranger, purge with a valid token: 403
stranger, pause with a valid token: 403
nothing changed: true
a session: cookie true, token (an HMAC of it) true
the cookie: rediskit_csrf=...; Path=/; HttpOnly; SameSite=Strict
no cookie: 403 Forbidden: no CSRF cookie
no token: 403 Forbidden: bad CSRF token
a wrong token: 403 Forbidden: bad CSRF token
the cookie as token: 403 Forbidden: bad CSRF token
a cross-site request: 403 Forbidden: a cross-site request
another Origin: 403 Forbidden: an Origin other than this host
nothing changed: true
a GET with the fields: nothing changed: true
Chromium, another site's form: true; nothing changed: true
requeue one: 303 requeue: 1 requeued; dead 3, due 1
delete one: 303 delete: 1 deleted; dead 2
delete one without an id: 400 
requeue all: 303 requeue_all: 2 requeued; dead 0, due 3
delete all: true; dead 0
pause: 303 pause: paused; paused true; again: 303 pause: already paused
resume: 303 resume: resumed; paused false
purge unconfirmed: 400 ; jobs left: true
purge: 303 purge: every job removed; jobs left 0
an unknown action: 400 
a queue not in the registry: 404 Not Found: no such queue in the registry
the result shown escaped: true
logged refusals: 7 (no CSRF cookie, bad CSRF token, a cross-site request, an Origin other than this host)
logged actions: requeue => 1 requeued, delete => 1 deleted, requeue_all => 2 requeued, delete_all => %d deleted, pause => paused, pause => already paused, resume => resumed, purge => every job removed
with the client and the id: true
ValueError: Dashboard: the 'authorize' option is required: a callable that returns true for who may see the dashboard
ValueError: Dashboard: the 'authorize' option is required: a callable that returns true for who may see the dashboard
ValueError: Dashboard: option 'secret' must be a string of at least 32 bytes
ValueError: Dashboard: unknown option 'colour' (known: authorize, connection, prefix, secret, logger, title, csrf)
ValueError: Dashboard: option 'logger' must be a PSR-3 logger
ValueError: Dashboard: option 'csrf' must be ['field' => a form field name, 'token' => a token of at least 16 bytes]
403 403 403 
