<?php

namespace RedisKit\Symfony\Messenger;

use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Transport\Receiver\KeepaliveReceiverInterface;
use Symfony\Component\Messenger\Transport\Receiver\MessageCountAwareInterface;
use Symfony\Component\Messenger\Transport\TransportInterface;

// Symfony 7.2+ lets long handlers keep their message claimed
// (KeepaliveReceiverInterface, `messenger:consume --keepalive`).
if (interface_exists(KeepaliveReceiverInterface::class)) {
    /** What the rediskit transport implements: with Symfony's keepalive (7.2+). */
    interface ReceiverContract extends TransportInterface, MessageCountAwareInterface, KeepaliveReceiverInterface
    {
    }
} else {
    /** What the rediskit transport implements (keepalive() is there for Symfony 7.2+). */
    interface ReceiverContract extends TransportInterface, MessageCountAwareInterface
    {
        public function keepalive(Envelope $envelope, ?int $seconds = null): void;
    }
}
