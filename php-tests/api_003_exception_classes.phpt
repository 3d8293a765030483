--TEST--
RedisKit exception classes behave like \RuntimeException: constructed and subclassed from PHP (message, code, previous, file, line, trace), not cloneable, thrown from Rust with the caller's file and line
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$classes = ['RedisKit\Exception', 'RedisKit\ConnectionException', 'RedisKit\LockTimeoutException', 'RedisKit\LockLostException', 'RedisKit\ReplicationException'];
class MyEx extends RedisKit\LockTimeoutException
{
    public function __construct(string $m, public string $extra = 'x') { parent::__construct("my: $m", 7); }
}
function describe(Throwable $e): string
{
    return sprintf('%s msg=%s code=%d prev=%s line=%d file=%s trace=%d', get_class($e), $e->getMessage(), $e->getCode(),
        $e->getPrevious() ? get_class($e->getPrevious()) : '-', $e->getLine(), $e->getFile() === __FILE__ ? 'this' : $e->getFile(),
        count($e->getTrace()));
}
function make(string $c, ...$a) { return new $c(...$a); }   // line 14
$prev = new LogicException('first');
foreach ($classes as $c) {
    $rc = new ReflectionClass($c);
    $e = make($c, 'm', 3, $prev);
    echo describe($e), "\n";
    echo '  parent=', $rc->getParentClass()->getName(), ' internal=', var_export($rc->isInternal(), true),
        ' final=', var_export($rc->isFinal(), true), ' cloneable=', var_export($rc->isCloneable(), true),
        ' instantiable=', var_export($rc->isInstantiable(), true), "\n";
    // everything \RuntimeException offers, nothing more or less
    $own = array_map(fn($m) => $m->getName(), $rc->getMethods());
    $base = array_map(fn($m) => $m->getName(), (new ReflectionClass('RuntimeException'))->getMethods());
    echo '  same methods as RuntimeException: ', var_export($own === $base, true), "\n";
    echo '  ctor params: ', implode(', ', array_map(fn($p) => $p->getType() . ' $' . $p->getName(), $rc->getConstructor()->getParameters())), "\n";
    $r = new RuntimeException('m', 3, $prev);
    foreach (['clone' => fn($x) => clone $x, 'serialize' => fn($x) => get_class(unserialize(serialize($x)))] as $what => $op) {
        $mine = rk_catch(fn() => $op($e));
        $theirs = rk_catch(fn() => $op($r));
        $norm = fn($t) => $t ? str_replace($c, 'RuntimeException', rk_ex($t)) : 'ok';
        echo "  $what: ", $norm($mine) === $norm($theirs) ? 'as RuntimeException (' . $norm($theirs) . ')' : 'DIFFERS: ' . $norm($mine) . ' vs ' . $norm($theirs), "\n";
    }
    echo '  default: ', describe(new $c()), "\n";
    echo '  string: ', implode(' / ', preg_grep('/^Next /', explode("\n", (string)$e))), "\n";
}
$e = new MyEx('hi');
echo describe($e), ' extra=', $e->extra, "\n";
var_dump($e instanceof RedisKit\Exception, $e instanceof RuntimeException);
try {
    throw new RedisKit\ConnectionException('thrown');
} catch (RedisKit\Exception $t) {
    echo describe($t), "\n";
}
// thrown from Rust: the PHP caller's file and line
$down = new RedisKit\RedisLock('r', 'redis://127.0.0.1:' . rk_free_port());
$t = rk_catch(fn() => $down->acquire());   // line 48
echo get_class($t), ' line=', $t->getLine(), ' file=', $t->getFile() === __FILE__ ? 'this' : $t->getFile(), ' frame=', $t->getTrace()[0]['function'], "\n";
?>
--EXPECTF--
RedisKit\Exception msg=m code=3 prev=LogicException line=14 file=this trace=1
  parent=RuntimeException internal=true final=false cloneable=false instantiable=true
  same methods as RuntimeException: true
  ctor params: string $message, int $code, ?Throwable $previous
  clone: as RuntimeException (Error: Trying to clone an uncloneable object of class RuntimeException)
  serialize: as RuntimeException (ok)
  default: RedisKit\Exception msg= code=0 prev=- line=35 file=this trace=0
  string: Next RedisKit\Exception: m in %sapi_003_exception_classes.php:14
RedisKit\ConnectionException msg=m code=3 prev=LogicException line=14 file=this trace=1
  parent=RedisKit\Exception internal=true final=false cloneable=false instantiable=true
  same methods as RuntimeException: true
  ctor params: string $message, int $code, ?Throwable $previous
  clone: as RuntimeException (Error: Trying to clone an uncloneable object of class RuntimeException)
  serialize: as RuntimeException (ok)
  default: RedisKit\ConnectionException msg= code=0 prev=- line=35 file=this trace=0
  string: Next RedisKit\ConnectionException: m in %sapi_003_exception_classes.php:14
RedisKit\LockTimeoutException msg=m code=3 prev=LogicException line=14 file=this trace=1
  parent=RedisKit\Exception internal=true final=false cloneable=false instantiable=true
  same methods as RuntimeException: true
  ctor params: string $message, int $code, ?Throwable $previous
  clone: as RuntimeException (Error: Trying to clone an uncloneable object of class RuntimeException)
  serialize: as RuntimeException (ok)
  default: RedisKit\LockTimeoutException msg= code=0 prev=- line=35 file=this trace=0
  string: Next RedisKit\LockTimeoutException: m in %sapi_003_exception_classes.php:14
RedisKit\LockLostException msg=m code=3 prev=LogicException line=14 file=this trace=1
  parent=RedisKit\Exception internal=true final=false cloneable=false instantiable=true
  same methods as RuntimeException: true
  ctor params: string $message, int $code, ?Throwable $previous
  clone: as RuntimeException (Error: Trying to clone an uncloneable object of class RuntimeException)
  serialize: as RuntimeException (ok)
  default: RedisKit\LockLostException msg= code=0 prev=- line=35 file=this trace=0
  string: Next RedisKit\LockLostException: m in %sapi_003_exception_classes.php:14
RedisKit\ReplicationException msg=m code=3 prev=LogicException line=14 file=this trace=1
  parent=RedisKit\Exception internal=true final=false cloneable=false instantiable=true
  same methods as RuntimeException: true
  ctor params: string $message, int $code, ?Throwable $previous
  clone: as RuntimeException (Error: Trying to clone an uncloneable object of class RuntimeException)
  serialize: as RuntimeException (ok)
  default: RedisKit\ReplicationException msg= code=0 prev=- line=35 file=this trace=0
  string: Next RedisKit\ReplicationException: m in %sapi_003_exception_classes.php:14
MyEx msg=my: hi code=7 prev=- line=38 file=this trace=0 extra=x
bool(true)
bool(true)
RedisKit\ConnectionException msg=thrown code=0 prev=- line=42 file=this trace=0
RedisKit\ConnectionException line=48 file=this frame=acquire
