--TEST--
ThrottleRequests, 8 processes through the middleware with a two-Limit named limiter (global first, per user second): never more than either limit, a refused request charges neither Limit, and every response's headers are Laravel's for the Limit with the least remaining
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) echo 'skip pcntl needed'; ?>
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
require __DIR__ . '/_throttle.inc';

use Illuminate\Cache\RateLimiting\Limit;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\RateLimiter;

const PROCS = 8;
const USER_LIMIT = 4;    // per minute
const GLOBAL_LIMIT = 10; // per 2 minutes

$app = rk_throttle_app();
RateLimiter::for('api', fn (Request $r) => [
    Limit::perMinutes(2, GLOBAL_LIMIT)->by('global'),
    Limit::perMinute(USER_LIMIT)->by('user:' . $r->query('u')),
]);
$app['router']->get('/api', fn () => 'ok')->middleware('throttle:api');
$ns = rk_ns();
$raw = new RkRaw();

/**
 * Forks PROCS children; child $i sends $requests requests as user $user($i)
 * once all are ready ($alone: no other child is that user), and pushes [user, admitted so far by this child,
 * status, headers check] per response to the list $ns.$round.
 */
function round_of(string $round, callable $user, int $requests, bool $alone): void
{
    global $app, $ns, $raw;
    $kids = [];
    for ($i = 0; $i < PROCS; $i++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $r = new RkRaw();
            $r->cmd('INCR', "$ns$round:ready");
            $ok = rk_wait_for(fn () => (int) $r->cmd('GET', "$ns$round:ready") === PROCS);
            $u = $user($i);
            $mine = 0;
            for ($n = 0; $n < $requests; $n++) {
                $res = rk_get($app, "/api?u=$u");
                $h = $res['headers'];
                $limit = (int) ($h['x-ratelimit-limit'] ?? 0);
                $rem = (int) ($h['x-ratelimit-remaining'] ?? -1);
                $window = $limit === USER_LIMIT ? 60 : 120;
                $check = rk_check_headers($res, 'api', $limit, $window, $rem);
                if ($res['status'] === 200) {
                    $mine++;
                    // the Limit with the least remaining: this user's (when the user is
                    // this child's alone, its remaining is known here) unless the global
                    // one has fewer or as many left (it comes first: ties go to it)
                    $userLeft = USER_LIMIT - $mine;
                    if ($alone && !($limit === USER_LIMIT && $rem === $userLeft || $limit === GLOBAL_LIMIT && $rem <= $userLeft)) {
                        $check .= " reported $limit/$rem with $userLeft left for the user";
                    }
                } elseif ($res['status'] !== 429 || $res['exception'] !== Illuminate\Http\Exceptions\ThrottleRequestsException::class) {
                    $check .= ' status ' . $res['status'];
                }
                $r->cmd('RPUSH', "$ns$round", json_encode([$u, $mine, $res['status'], $limit, $rem, $check]));
            }
            exit($ok ? 0 : 1);
        }
        $kids[] = $pid;
    }
    foreach ($kids as $pid) {
        pcntl_waitpid($pid, $st);
        if (!pcntl_wifexited($st) || pcntl_wexitstatus($st) !== 0) {
            echo "child $pid failed\n";
        }
    }
}

function results(string $round): array
{
    global $ns, $raw;
    return array_map(fn ($j) => json_decode($j, true), $raw->cmd('LRANGE', "$ns$round", '0', '-1'));
}

// round 1: all 8 processes are user `a`, 8 requests each: 4 pass. The global
// Limit is checked first, yet the 60 refused requests charge it nothing.
round_of('r1', fn ($i) => 'a', 8, false);
$res = results('r1');
$ok = array_values(array_filter($res, fn ($x) => $x[2] === 200));
$refused = array_values(array_filter($res, fn ($x) => $x[2] === 429));
echo 'round 1: ', count($res), ' responses, ', count($ok), ' passed, ', count($refused), " refused\n";
// when passed: always the user's Limit (it has fewer left), remaining 3, 2, 1, 0 once each
$pairs = array_map(fn ($x) => [$x[3], $x[4]], $ok);
sort($pairs);
echo json_encode($pairs), "\n";
// when refused: the user's Limit, 0 remaining
echo json_encode(array_values(array_unique(array_map(fn ($x) => "$x[3]/$x[4]", $refused))), JSON_UNESCAPED_SLASHES), "\n";
echo 'header problems: ', json_encode(array_values(array_filter(array_column($res, 5)))), "\n";
echo json_encode([RateLimiter::attempts(md5('apiuser:a')), RateLimiter::attempts(md5('apiglobal'))]), "\n";

// round 2: 8 new users, one per process, 4 requests each: the global Limit has
// 6 left, so exactly 6 of the 32 pass; no user's Limit ever refuses
round_of('r2', fn ($i) => "u$i", USER_LIMIT, true);
$res = results('r2');
$ok = array_values(array_filter($res, fn ($x) => $x[2] === 200));
$refused = array_values(array_filter($res, fn ($x) => $x[2] === 429));
echo 'round 2: ', count($res), ' responses, ', count($ok), ' passed, ', count($refused), " refused\n";
// each admission leaves the global Limit a different remaining; the last one (0) is always reported
$global = array_map(fn ($x) => $x[4], array_filter($ok, fn ($x) => $x[3] === GLOBAL_LIMIT));
echo json_encode([count($global) === count(array_unique($global)), in_array(0, $global, true), max($global) <= 5]), "\n";
echo json_encode(array_values(array_unique(array_map(fn ($x) => "$x[3]/$x[4]", $refused))), JSON_UNESCAPED_SLASHES), "\n";
echo 'header problems: ', json_encode(array_values(array_filter(array_column($res, 5)))), "\n";
// the counts in Redis: each user's is what passed for it, the global one is full
$perUser = [];
foreach ($ok as $x) {
    $perUser[$x[0]] = ($perUser[$x[0]] ?? 0) + 1;
}
$same = true;
for ($i = 0; $i < PROCS; $i++) {
    $same = $same && RateLimiter::attempts(md5("apiuser:u$i")) === ($perUser["u$i"] ?? 0);
}
echo json_encode([$same, max($perUser) <= USER_LIMIT, RateLimiter::attempts(md5('apiglobal')), RateLimiter::attempts(md5('apiuser:a'))]), "\n";
?>
--EXPECT--
round 1: 64 responses, 4 passed, 60 refused
[[4,0],[4,1],[4,2],[4,3]]
["4/0"]
header problems: []
[4,4]
round 2: 32 responses, 6 passed, 26 refused
[true,true,true]
["10/0"]
header problems: []
[true,true,10,4]
