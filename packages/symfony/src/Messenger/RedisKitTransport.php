<?php

namespace RedisKit\Symfony\Messenger;

use RedisKit\DelayQueue;
use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\LogicException;
use Symfony\Component\Messenger\Exception\MessageDecodingFailedException;
use Symfony\Component\Messenger\Exception\TransportException;
use Symfony\Component\Messenger\Stamp\DelayStamp;
use Symfony\Component\Messenger\Stamp\TransportMessageIdStamp;
use Symfony\Component\Messenger\Transport\Serialization\SerializerInterface;

/**
 * A Messenger transport on RedisKit\DelayQueue: a DelayStamp is a delay
 * on the Redis clock (never handed out early), get() claims one message
 * for `visibility_timeout` seconds and blocks up to `block_for` seconds
 * (woken by a push, not polling), a consumer that dies leaves its message
 * to come back when its claim lapses, with RedisKitReceivedStamp counting
 * such deliveries. Messenger decides retries and failures (the queue's own
 * max_attempts is 0). Made by RedisKitTransportFactory.
 */
final class RedisKitTransport implements ReceiverContract
{
    public function __construct(
        private DelayQueue $queue,
        private SerializerInterface $serializer,
        private float $blockFor,
    ) {
    }

    /** @return list<Envelope> at most one, claimed for visibility_timeout */
    public function get(): iterable
    {
        $out = [];
        foreach ($this->redis(fn() => $this->queue->pop(1, $this->blockFor)) as $job) {
            $data = json_decode($job['payload'], true);
            if (!is_array($data) || !isset($data['body']) || !is_string($data['body'])) {
                $this->redis(fn() => $this->queue->ack($job['id']));
                throw new MessageDecodingFailedException(sprintf('rediskit transport: message %s is not an encoded envelope (removed)', $job['id']));
            }
            if (!empty($data['b64'])) {
                $data['body'] = (string) base64_decode($data['body']);
            }
            try {
                $envelope = $this->serializer->decode(['body' => $data['body'], 'headers' => $data['headers'] ?? []]);
            } catch (MessageDecodingFailedException $e) {
                // as Symfony's transports do: a message no one can decode is dropped
                $this->redis(fn() => $this->queue->ack($job['id']));
                throw $e;
            }
            $out[] = $envelope->with(new RedisKitReceivedStamp($job['id'], $job['attempts'], $job['due_at']), new TransportMessageIdStamp($job['id']));
        }

        return $out;
    }

    /** Done: deletes the message (nothing happens if the claim lapsed and another consumer has it now). */
    public function ack(Envelope $envelope): void
    {
        $id = $this->id($envelope);
        $this->redis(fn() => $this->queue->ack($id));
    }

    /** Failed for good here (Messenger has sent it on for retry or to the failure transport): deletes it. */
    public function reject(Envelope $envelope): void
    {
        $this->ack($envelope);
    }

    /** Extends this consumer's claim to visibility_timeout from now (the transport's, whatever $seconds says). */
    public function keepalive(Envelope $envelope, ?int $seconds = null): void
    {
        $id = $this->id($envelope);
        $this->redis(fn() => $this->queue->touch($id));
    }

    public function send(Envelope $envelope): Envelope
    {
        $encoded = $this->serializer->encode($envelope);
        $data = ['body' => $encoded['body'], 'headers' => $encoded['headers'] ?? []];
        $flags = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE;
        // a body that is not UTF-8 (a serializer's binary output) goes in base64
        $payload = json_encode($data, $flags)
            ?: json_encode(['body' => base64_encode($data['body']), 'headers' => $data['headers'], 'b64' => true], $flags);
        if ($payload === false) {
            throw new TransportException('rediskit transport: the encoded envelope cannot be stored: ' . json_last_error_msg());
        }
        $delay = $envelope->last(DelayStamp::class)?->getDelay() ?? 0;
        $id = $this->redis(fn() => $this->queue->push($payload, max(0, $delay) / 1000));

        return $envelope->with(new TransportMessageIdStamp($id));
    }

    /** Messages waiting: due now or delayed (not those claimed by a consumer). */
    public function getMessageCount(): int
    {
        $c = $this->redis(fn() => $this->queue->counts());

        return $c['due'] + $c['scheduled'];
    }

    /** Redis failures are Messenger's TransportException (the extension's exception is the previous one). */
    private function redis(\Closure $call): mixed
    {
        try {
            return $call();
        } catch (\RedisKit\Exception $e) {
            throw new TransportException($e->getMessage(), 0, $e);
        }
    }

    private function id(Envelope $envelope): string
    {
        $stamp = $envelope->last(RedisKitReceivedStamp::class);
        if (!$stamp instanceof RedisKitReceivedStamp) {
            throw new LogicException('No RedisKitReceivedStamp on the envelope: it was not received from a rediskit transport.');
        }

        return $stamp->getId();
    }
}
