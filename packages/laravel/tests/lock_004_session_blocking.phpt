--TEST--
Laravel locks on rediskit through session blocking: two processes sending requests of one session to a route with ->block() (Laravel's StartSession middleware, its lock on the block_store 'rediskit') run one after the other, the second woken when the first's request ends; another session is not held up
--INI--
extension=mbstring
extension=ctype
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Http\Request;
use Illuminate\Session\Middleware\StartSession;

$session = [
    'driver' => 'array', 'lifetime' => 120, 'expire_on_close' => false, 'encrypt' => false,
    'files' => sys_get_temp_dir(), 'connection' => null, 'table' => 'sessions', 'store' => null,
    'lottery' => [0, 100], 'cookie' => 'rk_session', 'path' => '/', 'domain' => null,
    'secure' => false, 'http_only' => true, 'same_site' => 'lax', 'partitioned' => false,
    'block_store' => 'rediskit',
];
$app = rk_app(['session' => $session]);
$app->register(Illuminate\Session\SessionServiceProvider::class);
$router = $app['router'];
$router->get('/slow', function () {
    $r = new RkRaw();
    $r->cmd('RPUSH', rk_ns() . 'spans', sprintf('%s start %.6f', $_SERVER['RK_WHO'], microtime(true)));
    $r->cmd('SET', rk_ns() . 'inside:' . $_SERVER['RK_WHO'], '1');
    if ($_SERVER['RK_WHO'] === 'A') {
        // A holds its session until C (another session) is inside its own
        // request: C must get there while A holds it (10 s at most, beyond
        // B's 5 s wait: a C held up by A's lock fails the test)
        $until = microtime(true) + 10;
        while ($r->cmd('GET', rk_ns() . 'inside:C') !== '1' && microtime(true) < $until) usleep(2000);
    }
    usleep(150000);
    $r->cmd('RPUSH', rk_ns() . 'spans', sprintf('%s end %.6f', $_SERVER['RK_WHO'], microtime(true)));
    return 'ok';
})->middleware(StartSession::class)->block(5, 5);

$id = str_repeat('a', 40);
$other = str_repeat('b', 40);
$raw = new RkRaw();
$send = function (string $who, string $sid) use ($router) {
    $_SERVER['RK_WHO'] = $who;
    $response = $router->dispatch(Request::create('/slow', 'GET', [], ['rk_session' => $sid]));
    $r = new RkRaw();
    $r->cmd('RPUSH', rk_ns() . 'spans', sprintf('%s done %.6f', $who, microtime(true)));   // the session lock released
    $r->cmd('RPUSH', rk_ns() . 'status', "$who " . $response->getStatusCode());
};
$kids = [];
$kids[] = rk_fork_laravel(fn() => $send('A', $id));
// B starts once A is inside its request (holding the session lock)
$deadline = microtime(true) + 10;
while ($raw->cmd('GET', rk_ns() . 'inside:A') !== '1' && microtime(true) < $deadline) usleep(1000);
$kids[] = rk_fork_laravel(fn() => $send('B', $id));
$kids[] = rk_fork_laravel(fn() => $send('C', $other));   // another session: not held up
foreach ($kids as $pid) pcntl_waitpid($pid, $st);

$t = [];
foreach ($raw->cmd('LRANGE', rk_ns() . 'spans', '0', '-1') as $line) {
    [$who, $what, $at] = explode(' ', $line);
    $t[$who][$what] = (float)$at;
}
$statuses = $raw->cmd('LRANGE', rk_ns() . 'status', '0', '-1');
sort($statuses);
var_dump($statuses);
var_dump($t['B']['start'] >= $t['A']['end']);            // B ran after A's request, not beside it
var_dump($t['C']['start'] < $t['A']['end']);             // C (another session) did not wait for A
$wake = ($t['B']['start'] - $t['A']['end']) * 1000;
rk_report(sprintf('lock_004: the second request of a session reached its handler %.2f ms after the first one\'s handler returned, %.2f ms after the first request (and its session lock) was done (Laravel polls every 50 ms here)', $wake, ($t['B']['start'] - $t['A']['done']) * 1000));
var_dump($wake < 1000.0);
$l = Illuminate\Support\Facades\Cache::lock('session:' . $id);
var_dump($l->isLocked());
?>
--EXPECT--
array(3) {
  [0]=>
  string(5) "A 200"
  [1]=>
  string(5) "B 200"
  [2]=>
  string(5) "C 200"
}
bool(true)
bool(true)
bool(true)
bool(false)
