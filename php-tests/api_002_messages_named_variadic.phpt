--TEST--
Arguments: PHP's own TypeError / ArgumentCountError / deprecation texts naming the method and parameter, coerced values reach Redis as PHP would pass them, named arguments and the variadic remove()
--FILE--
<?php
require __DIR__ . '/_rk.inc';
require __DIR__ . '/api_strict.inc';
$ns = rk_ns();
$lb = new RedisKit\RedisLeaderboard($ns . 'lb', rk_conn());
$lock = new RedisKit\RedisLock($ns . 'lock', rk_conn());
$q = new RedisKit\DelayQueue($ns . 'q', rk_conn());
set_error_handler(function ($no, $msg) { echo "  [", $no === E_DEPRECATED ? 'Deprecated' : $no, "] $msg\n"; return true; });
function show(callable $f): void
{
    try {
        $r = $f();
        echo '  => ', json_encode($r), "\n";
    } catch (Throwable $e) {
        echo '  ', get_class($e), ': ', $e->getMessage(), "\n";
    }
}
echo "type errors\n";
show(fn() => $lb->top([]));
show(fn() => $lb->top(new stdClass()));
show(fn() => $lb->setScore('m', 'abc'));
show(fn() => $lb->page(1, [1]));
show(fn() => $lb->period([]));
show(fn() => $lb->setScores('x'));
show(fn() => $lock->extend('soon'));
show(fn() => $q->requeueDead(new stdClass()));
show(fn() => new RedisKit\RateLimiter('x', 'ten', 1.0));
show(fn() => new RedisKit\RateLimiter('x', 10, 1.0, null, 'opts'));
show(fn() => new RedisKit\RedisLock('r', 42.5));
show(fn() => api_call_strict(null, [$lb, 'score'], [7]));
show(fn() => api_call_strict(null, [$lb, 'top'], ['3']));
show(fn() => api_call_strict(null, [$lb, 'top'], [3.0]));
show(fn() => api_call_strict(null, [$lock, 'extend'], [3]));   // int -> float stays allowed
show(fn() => api_call_strict('RedisKit\RedisLock', null, ['r', 42]));
// the same through PHP's other ways to call a method
show(fn() => ($lb->top(...))([]));
show(fn() => Closure::fromCallable([$lb, 'top'])('x'));
show(fn() => call_user_func([$lb, 'top'], []));
show(fn() => call_user_func_array([$lb, 'top'], ['limit' => []]));
show(fn() => (new ReflectionMethod($lb, 'top'))->invoke($lb, []));
show(fn() => array_map([$lb, 'score'], [[]]));
echo "callbacks\n";
show(fn() => $lock->run('no_such_fn'));
show(fn() => $lock->run([$lock, 'nope']));
show(fn() => $lock->run(null));
show(fn() => $lock->run(fn() => 'ran', '0'));
echo "argument counts\n";
show(fn() => $lb->top(1, 2));
show(fn() => $lb->between(1));
show(fn() => new RedisKit\RateLimiter('x'));
show(fn() => $lb->score());
echo "coercions and deprecations\n";
show(fn() => $lb->setScore('m1', '1.5'));
show(fn() => $lb->setScore(new class { function __toString(): string { return 'm2'; } }, true));
show(fn() => $lb->setScore(3, 2));
show(fn() => $lb->score('3'));
show(fn() => $lb->top('2'));
show(fn() => $lb->top(' 2 '));
show(fn() => $lb->top(2.0));
show(fn() => $lb->top(2.5));
show(fn() => $lb->top(null));
show(fn() => $lb->top('1e1'));
show(fn() => $lb->around('m1', false));
show(fn() => $lb->score(null));
echo "named arguments\n";
show(fn() => $lb->top(limit: 1));
show(fn() => $lb->page(perPage: 1, page: 2));
show(fn() => $lb->page(perPage: 1));
show(fn() => $q->pop(wait: 0.0));
show(fn() => $lb->top(lim: 1));
show(fn() => new RedisKit\RedisLeaderboard(connection: rk_conn(), name: $ns . 'lb2'));
echo "variadic remove\n";
show(fn() => $lb->remove());
show(fn() => $lb->remove(['m1']));
show(fn() => $lb->remove('m1', []));
show(fn() => $lb->remove(members: 'm1'));
show(fn() => $lb->remove('m1', x: 'm2'));
show(fn() => $lb->remove(...['a' => 'm1']));
show(fn() => $lb->count());
show(fn() => $lb->remove(...['m1', 'm2']));
show(fn() => $lb->remove(3, 'nobody'));
show(fn() => $lb->count());
$lb->clear();
?>
--EXPECTF--
type errors
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, array given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, stdClass given
  TypeError: RedisKit\RedisLeaderboard::setScore(): Argument #2 ($score) must be of type float, string given
  TypeError: RedisKit\RedisLeaderboard::page(): Argument #2 ($perPage) must be of type int, array given
  TypeError: RedisKit\RedisLeaderboard::period(): Argument #1 ($period) must be of type string, array given
  TypeError: RedisKit\RedisLeaderboard::setScores(): Argument #1 ($scores) must be of type array, string given
  TypeError: RedisKit\RedisLock::extend(): Argument #1 ($ttl) must be of type ?float, string given
  TypeError: RedisKit\DelayQueue::requeueDead(): Argument #1 ($id) must be of type array|string|null, stdClass given
  TypeError: RedisKit\RateLimiter::__construct(): Argument #2 ($limit) must be of type int, string given
  TypeError: RedisKit\RateLimiter::__construct(): Argument #5 ($options) must be of type ?array, string given
  ValueError: invalid Redis DSN '42.5'%s
  TypeError: RedisKit\RedisLeaderboard::score(): Argument #1 ($member) must be of type string, int given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, string given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, float given
  => false
  TypeError: RedisKit\RedisLock::__construct(): Argument #2 ($connection) must be of type array|string|null, int given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, array given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, string given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, array given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, array given
  TypeError: RedisKit\RedisLeaderboard::top(): Argument #1 ($limit) must be of type int, array given
  TypeError: RedisKit\RedisLeaderboard::score(): Argument #1 ($member) must be of type string, array given
callbacks
  TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, function "no_such_fn" not found or invalid function name
  TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, class RedisKit\RedisLock does not have a method "nope"
  TypeError: RedisKit\RedisLock::run(): Argument #1 ($callback) must be a valid callback, no array or string given
  => "ran"
argument counts
  ArgumentCountError: RedisKit\RedisLeaderboard::top() expects at most 1 argument, 2 given
  ArgumentCountError: RedisKit\RedisLeaderboard::between() expects exactly 2 arguments, 1 given
  ArgumentCountError: RedisKit\RateLimiter::__construct() expects at least 3 arguments, 1 given
  ArgumentCountError: RedisKit\RedisLeaderboard::score() expects exactly 1 argument, 0 given
coercions and deprecations
  => null
  => null
  => null
  => 2
  => [{"member":"3","score":2,"rank":1},{"member":"m1","score":1.5,"rank":2}]
  => [{"member":"3","score":2,"rank":1},{"member":"m1","score":1.5,"rank":2}]
  => [{"member":"3","score":2,"rank":1},{"member":"m1","score":1.5,"rank":2}]
  [Deprecated] Implicit conversion from float 2.5 to int loses precision
  => [{"member":"3","score":2,"rank":1},{"member":"m1","score":1.5,"rank":2}]
  [Deprecated] RedisKit\RedisLeaderboard::top(): Passing null to parameter #1 ($limit) of type int is deprecated
  ValueError: %s
  => [{"member":"3","score":2,"rank":1},{"member":"m1","score":1.5,"rank":2},{"member":"m2","score":1,"rank":3}]
  => [{"member":"m1","score":1.5,"rank":2}]
  [Deprecated] RedisKit\RedisLeaderboard::score(): Passing null to parameter #1 ($member) of type string is deprecated
  => null
named arguments
  => [{"member":"3","score":2,"rank":1}]
  => [{"member":"m1","score":1.5,"rank":2}]
  ArgumentCountError: RedisKit\RedisLeaderboard::page(): Argument #1 ($page) not passed
  => []
  Error: Unknown named parameter $lim
  => {}
variadic remove
  => 0
  TypeError: RedisKit\RedisLeaderboard::remove(): Argument #1 must be of type string, array given
  TypeError: RedisKit\RedisLeaderboard::remove(): Argument #2 must be of type string, array given
  ArgumentCountError: RedisKit\RedisLeaderboard::remove() does not accept unknown named parameters
  ArgumentCountError: RedisKit\RedisLeaderboard::remove() does not accept unknown named parameters
  ArgumentCountError: RedisKit\RedisLeaderboard::remove() does not accept unknown named parameters
  => 3
  => 2
  => 1
  => 0
