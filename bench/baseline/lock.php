<?php
// The userland lock the seed articles write with phpredis, kept as they write
// it: SET NX EX to take it, a Lua GET+DEL through EVAL to release it
// (000/001/004), and waiting as a usleep(50 ms) polling loop (003:
// retryInterval 50 ms, maxRetries 20).

final class SeedRedisLock
{
    private $redis;
    private $lockKey;
    private $lockValue;
    private $expireTime = 30;
    private $retryInterval = 50; // ms
    private $maxRetries = 20;

    public function __construct($redis, $lockKey, int $maxRetries = 20)
    {
        $this->redis = $redis;
        $this->lockKey = $lockKey;
        $this->lockValue = getmypid() . '-' . uniqid();
        $this->maxRetries = $maxRetries;
    }

    /** 001: one attempt. */
    public function tryAcquire(): bool
    {
        return (bool)$this->redis->set($this->lockKey, $this->lockValue, ['nx', 'ex' => $this->expireTime]);
    }

    /** 003: the polling loop. */
    public function acquire()
    {
        $retryCount = 0;
        while ($retryCount < $this->maxRetries) {
            $result = $this->redis->set($this->lockKey, $this->lockValue, ['NX', 'EX' => $this->expireTime]);
            if ($result) {
                return true;
            }
            usleep($this->retryInterval * 1000);
            $retryCount++;
        }
        return false;
    }

    public function release()
    {
        $lua = <<<LUA
if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
else
    return 0
end
LUA;
        return $this->redis->eval($lua, [$this->lockKey, $this->lockValue], 1) > 0;
    }
}
