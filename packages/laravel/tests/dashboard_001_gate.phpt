--TEST--
Laravel dashboard route (/rediskit, `web` middleware) through the real HTTP kernel: without a viewRedisKit gate only APP_ENV=local sees it, a production app answers 403; a gate the application defines decides; the queue the application pushed to is listed; a POST action needs Laravel's own session CSRF token (419 without it, nothing changed) and with it pauses the queue and redirects back; REDISKIT_DASHBOARD_ROUTE='' registers no route
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_skeleton.inc';

$srv = new RkServer();
$base = sys_get_temp_dir() . '/rk-dashboard-' . getmypid();
$dir = "$base/app";
if (!getenv("RK_KEEP")) register_shutdown_function(fn () => exec('rm -rf ' . escapeshellarg($base)));
rk_skeleton($dir);
rk_composer_require($dir, 'rediskit/dashboard', __DIR__ . '/../../dashboard');
rk_composer_require($dir, 'rediskit/laravel', __DIR__ . '/..');
[$rc, $out, $err] = rk_app_run($dir, array_merge(rk_php(), ['artisan', 'package:discover']));
echo "package:discover: exit $rc\n";
$env = preg_replace('/^QUEUE_CONNECTION=.*\n/m', '', file_get_contents("$dir/.env"));
file_put_contents("$dir/.env", $env . "REDISKIT_CONNECTION={$srv->url}\nQUEUE_CONNECTION=rediskit\n");
$queueConfig = file_get_contents("$dir/config/queue.php");
$queueConfig = str_replace("'connections' => [\n", "'connections' => [\n\n        'rediskit' => ['driver' => 'rediskit', 'queue' => 'default', 'retry_after' => 90, 'block_for' => 0],\n", $queueConfig, $n);
file_put_contents("$dir/config/queue.php", $queueConfig);
$setEnv = function (string $name, string $value) use ($dir) {
    $env = preg_replace("/^$name=.*\\n/m", '', file_get_contents("$dir/.env"));
    file_put_contents("$dir/.env", $env . "$name=$value\n");
};

// one PHP process serves the requests of a browser session (cookies carried over)
$code = <<<'PHP'
Queue::pushRaw('{"job":"a"}');
$kernel = app(Illuminate\Contracts\Http\Kernel::class);
$jar = [];
$send = function (string $method, string $uri, array $form = [], array $server = []) use ($kernel, &$jar) {
    $request = Illuminate\Http\Request::create($uri, $method, $form, $jar, [], $server + ['REMOTE_ADDR' => '192.0.2.7']);
    $response = $kernel->handle($request);
    $kernel->terminate($request, $response);
    foreach ($response->headers->getCookies() as $c) {
        $jar[$c->getName()] = $c->getValue();
    }
    return $response;
};
if (getenv('RK_GATE')) {
    Gate::define('viewRedisKit', fn ($user = null) => request()->header('X-Operator') === 'yes');
}
$r = $send('GET', '/rediskit');
$body = (string) $r->getContent();
echo "GET /rediskit: ", $r->getStatusCode(), $r->getStatusCode() === 200 ? ', CSP ' . (str_contains((string) $r->headers->get('Content-Security-Policy'), "default-src 'none'") ? 'yes' : 'no') . ', queue listed: ' . (str_contains($body, '>queues:default</a>') || str_contains($body, '>default</a>') ? 'yes' : 'no: ' . substr(strip_tags($body), 0, 300)) : ' ' . trim($body), "\n";
if (getenv('RK_GATE')) {
    $r = $send('GET', '/rediskit', [], ['HTTP_X_OPERATOR' => 'yes']);
    $body = (string) $r->getContent();
    echo "as an operator: ", $r->getStatusCode(), "\n";
    preg_match('/<a href="\?p=queue&amp;name=([^"]+)">/', $body, $link);
    $name = html_entity_decode($link[1] ?? '');
    parse_str("name=$name", $p);
    $name = $p['name'];
    $page = (string) $send('GET', '/rediskit?p=queue&name=' . rawurlencode($name), [], ['HTTP_X_OPERATOR' => 'yes'])->getContent();
    preg_match('/name="_token" value="([^"]+)"/', $page, $t);
    echo "the form carries Laravel's session token: ", strlen($t[1] ?? '') === 40 ? 'yes' : 'no', "\n";
    $r = $send('POST', '/rediskit?p=queue&name=' . rawurlencode($name), ['queue' => $name, 'action' => 'pause', '_token' => 'wrong'], ['HTTP_X_OPERATOR' => 'yes']);
    $queue = new RedisKit\DelayQueue($name, config('rediskit.connection'), ['prefix' => (string) config('rediskit.prefix')]);
    echo "POST with a wrong token: ", $r->getStatusCode(), ", paused: ", var_export($queue->isPaused(), true), "\n";
    $r = $send('POST', '/rediskit?p=queue&name=' . rawurlencode($name), ['queue' => $name, 'action' => 'pause', '_token' => $t[1] ?? ''], ['HTTP_X_OPERATOR' => 'yes']);
    echo "POST with the token: ", $r->getStatusCode(), " ", $r->headers->get('Location'), ", paused: ", var_export($queue->isPaused(), true), "\n";
    $r = $send('POST', '/rediskit?p=queue&name=' . rawurlencode($name), ['queue' => $name, 'action' => 'resume', '_token' => $t[1] ?? '']);
    echo "the same POST, not an operator: ", $r->getStatusCode(), ", paused: ", var_export($queue->isPaused(), true), "\n";
    $queue->resume();
}
echo "route: ", app('router')->getRoutes()->getByName('rediskit.dashboard')?->uri() ?? 'none', "\n";
PHP;
echo "-- APP_ENV=local, no gate\n";
[$rc, $out, $err] = rk_app_code($dir, $code);
echo $out, $err, "exit $rc\n";
echo "-- APP_ENV=production, no gate\n";
$setEnv('APP_ENV', 'production');
[$rc, $out, $err] = rk_app_code($dir, $code);
echo $out, $err, "exit $rc\n";
echo "-- APP_ENV=production, a gate of the application's\n";
putenv('RK_GATE=1');
[$rc, $out, $err] = rk_app_code($dir, $code);
echo $out, $err, "exit $rc\n";
putenv('RK_GATE');
echo "-- REDISKIT_DASHBOARD_ROUTE=''\n";
$setEnv('REDISKIT_DASHBOARD_ROUTE', '');
[$rc, $out, $err] = rk_app_code($dir, 'echo "route: ", app("router")->getRoutes()->getByName("rediskit.dashboard")?->uri() ?? "none", "\n";');
echo $out, $err, "exit $rc\n";
?>
--EXPECTF--
package:discover: exit 0
-- APP_ENV=local, no gate
GET /rediskit: 200, CSP yes, queue listed: yes
route: rediskit
exit 0
-- APP_ENV=production, no gate
GET /rediskit: 403 Forbidden
route: rediskit
exit 0
-- APP_ENV=production, a gate of the application's
GET /rediskit: 403 Forbidden
as an operator: 200
the form carries Laravel's session token: yes
POST with a wrong token: 419, paused: false
POST with the token: 303 ?p=queue&name=%s, paused: true
the same POST, not an operator: 403, paused: true
route: rediskit
exit 0
-- REDISKIT_DASHBOARD_ROUTE=''
route: none
exit 0
