package narwhal.sim;

import io.netty.channel.EventLoop;
import org.jspecify.annotations.Nullable;

/**
 * A decode leg's promise to tell its producer, once, that the KV it leased is no longer needed:
 * when the KV has arrived, or when the decode ends before that (vLLM's decode notifies the producer
 * even when it aborts, so the blocks are freed). Nothing to do when the descriptor named no
 * release URL (a real vLLM producer, or a simple-mode simulator). Confined to one event loop.
 */
final class ProducerNotice {
  private final EventLoop loop;
  private final @Nullable ProducerKv producer;
  private boolean sent;

  ProducerNotice(EventLoop loop, @Nullable ProducerKv producer) {
    this.loop = loop;
    this.producer = producer;
  }

  /** Sends the notice unless it went already. */
  void send() {
    if (producer != null && !sent) {
      sent = true;
      KvReleaseClient.send(loop, producer);
    }
  }
}
