<?php
// The cache-aside code of seed 003, kept as it is written there (with the
// phpredis client passed in, as its RedisConnection singleton would hand it
// out): getCache() with its negative-cache marker, and getHotData(), which
// takes the seed's RedisLock (bench/baseline/lock.php: 20 tries 50 ms apart)
// on a miss and, failing that, sleep(1)s and tries again.
require_once __DIR__ . '/lock.php';

function seed_getCache($redis, $key, $fetchCallback, $ttl = 3600)
{
    $cache = $redis->get($key);

    if ($cache !== false) {
        return json_decode($cache, true);
    }

    $data = $fetchCallback();

    if ($data === null) {
        $redis->setex('cache:miss:' . $key, 300, '1');
        return null;
    }

    $redis->setex($key, $ttl, json_encode($data));
    return $data;
}

function seed_getHotData($redis, $key, $fetchCallback, $ttl = 3600)
{
    $cache = $redis->get($key);
    if ($cache !== false) {
        return json_decode($cache, true);
    }

    $lockKey = 'cache:lock:' . $key;
    $redisLock = new SeedRedisLock($redis, $lockKey);

    if ($redisLock->acquire()) {
        try {
            $cache = $redis->get($key);
            if ($cache !== false) {
                return json_decode($cache, true);
            }

            $data = $fetchCallback();

            $redis->setex($key, $ttl, json_encode($data));
            return $data;
        } finally {
            $redisLock->release();
        }
    } else {
        sleep(1);
        return seed_getHotData($redis, $key, $fetchCallback, $ttl);
    }
}
