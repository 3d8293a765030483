<?php

namespace RedisKit\Symfony\Messenger;

use Symfony\Component\Messenger\Stamp\NonSendableStampInterface;

/**
 * On every envelope the rediskit transport hands out: the job id, when it
 * was due, and how many earlier deliveries of it ended without an ack (a consumer that died
 * or overran its visibility timeout). 0 on a first delivery. Retries
 * decided by Messenger are new messages (with Messenger's RedeliveryStamp).
 */
final class RedisKitReceivedStamp implements NonSendableStampInterface
{
    public function __construct(
        private string $id,
        private int $attempts,
        private float $dueAt = 0.0,
    ) {
    }

    public function getId(): string
    {
        return $this->id;
    }

    /** Earlier deliveries of this message that ended without an ack. */
    public function getAttempts(): int
    {
        return $this->attempts;
    }

    /** When the message was due (unix seconds, Redis clock): sent + its DelayStamp, or the lapsed claim's end + backoff. */
    public function getDueAt(): float
    {
        return $this->dueAt;
    }
}
