package narwhal.kvindex;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine's KV event messages in, its {@link EventIndex} kept right: frames checked, sequence
 * numbers followed, gaps filled from the replay socket, faults answered by dropping the index and
 * rebuilding it from new events (never by guessing what was missed). Runs on the subscriber thread.
 *
 * <ul>
 *   <li>A message is three frames: topic, sequence number (8 bytes, big-endian), MessagePack payload.
 *       Anything else drops the index ({@code frames}).
 *   <li>The first message after the router subscribes asks the replay socket for what came before
 *       it (the engine's buffer), so an engine already warm is known at once.
 *   <li>A gap asks the replay socket for the missed messages; if they do not all come back in
 *       {@code cache.replay_timeout_s}, the index is dropped ({@code gap}).
 *   <li>A sequence number at or below the last one means a new publisher (the engine restarted): the
 *       index is dropped ({@code restart}) and rebuilt.
 *   <li>An unreadable payload, or events of another block size, drop it too ({@code malformed},
 *       {@code block_size}).
 * </ul>
 *
 * Each fault is logged once per engine and reason per minute, and counted.
 */
final class EventFeed {

  private static final Logger log = LoggerFactory.getLogger(EventFeed.class);
  /** The most messages one gap may replay; a longer gap drops the index instead. */
  static final long MAX_REPLAY = 100_000;
  private static final long LOG_EVERY_NANOS = 60_000_000_000L;

  private final EngineEntry entry;
  private final EventIndex index;
  private final int blockSize;
  private final byte[] topic;
  private final Replayer replayer;
  private final LongSupplier clock;
  private final java.util.Map<String, Long> lastLogged = new java.util.HashMap<>();

  EventFeed(EngineEntry entry, int blockSize, Replayer replayer, LongSupplier clock) {
    this.entry = entry;
    this.index = java.util.Objects.requireNonNull(entry.events, "an events engine");
    this.blockSize = blockSize;
    this.topic = entry.config.topic().getBytes(StandardCharsets.UTF_8);
    this.replayer = replayer;
    this.clock = clock;
  }

  /** One message as received: its frames. */
  void message(List<byte[]> frames) {
    entry.lastMessageNanos = clock.getAsLong();
    if (frames.size() != 3 || frames.get(1).length != 8) {
      fault(DropReason.FRAMES, "a message of " + frames.size() + " frames"
          + (frames.size() >= 2 ? " with a sequence frame of " + frames.get(1).length + " bytes" : "")
          + " (vLLM sends three: topic, 8-byte sequence number, payload)");
      return;
    }
    if (topic.length > 0 && !Arrays.equals(topic, frames.get(0))) {
      return; // another topic under the same prefix: not this engine's events
    }
    long seq = ByteBuffer.wrap(frames.get(1)).getLong();
    long last = entry.lastSeq;
    if (last < 0) {
      if (seq > 0) {
        catchUp(seq);
      }
    } else if (seq <= last) {
      fault(DropReason.RESTART, "its sequence went from " + last + " back to " + seq + " (a restarted engine)");
    } else if (seq > last + 1) {
      fillGap(last + 1, seq - 1);
    }
    entry.lastSeq = seq;
    apply(frames.get(2));
  }

  /** The router learned the engine restarted: what the index holds is gone. */
  void engineRestarted() {
    fault(DropReason.ENGINE_RESTART, "the engine restarted");
  }

  private void catchUp(long seq) {
    List<Replayer.Replayed> before = replayer.replay(Math.max(0, seq - MAX_REPLAY), seq - 1);
    // Whatever the engine still buffers, as long as it runs without a hole up to this message.
    int start = contiguousSuffix(before, seq - 1);
    for (int i = start; i < before.size(); i++) {
      apply(before.get(i).payload());
    }
  }

  private void fillGap(long from, long upTo) {
    entry.replays.increment();
    List<Replayer.Replayed> missed = upTo - from + 1 > MAX_REPLAY ? List.of() : replayer.replay(from, upTo);
    boolean complete = missed.size() == upTo - from + 1;
    for (int i = 0; complete && i < missed.size(); i++) {
      complete = missed.get(i).seq() == from + i;
    }
    if (!complete) {
      entry.replayFailures.increment();
      fault(DropReason.GAP, "messages " + from + ".." + upTo + " were missed and "
          + (entry.config.replayEndpoint() == null ? "it has no replay endpoint" : "its replay socket did not return them"));
      return;
    }
    for (Replayer.Replayed m : missed) {
      apply(m.payload());
    }
  }

  private static int contiguousSuffix(List<Replayer.Replayed> messages, long last) {
    int i = messages.size();
    long expected = last;
    while (i > 0 && messages.get(i - 1).seq() == expected) {
      i--;
      expected--;
    }
    return i;
  }

  private void apply(byte[] payload) {
    EventBatch batch;
    try {
      batch = EventBatchDecoder.decode(payload);
    } catch (MalformedEventsException e) {
      fault(DropReason.MALFORMED, "an unreadable event batch (" + e.getMessage() + ")");
      return;
    }
    entry.batches.increment();
    for (KvEvent event : batch.events()) {
      if (event instanceof KvEvent.BlockStored stored && stored.blockSize() != blockSize) {
        fault(DropReason.BLOCK_SIZE, "blocks of " + stored.blockSize() + " tokens, but cache.block_size is "
            + blockSize + " (set it to the engine's --block-size)");
        return;
      }
      if (event instanceof KvEvent.AllBlocksCleared) {
        entry.dropped(DropReason.CLEARED);
      }
      index.apply(event);
      entry.eventsApplied.increment();
    }
  }

  private void fault(String reason, String detail) {
    index.clear();
    entry.check.reset();
    entry.dropped(reason);
    long now = clock.getAsLong();
    Long logged = lastLogged.get(reason);
    if (logged == null || now - logged >= LOG_EVERY_NANOS) {
      lastLogged.put(reason, now);
      log.warn("KV events of engine {} ({}): {}; its index is dropped and rebuilt from new events, and placement"
          + " prices the engine by load until it holds blocks again", entry.iid, entry.config.endpoint(), detail);
    }
  }
}
