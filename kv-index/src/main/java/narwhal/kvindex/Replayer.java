package narwhal.kvindex;

import java.util.List;

/** Asks an engine's replay socket for the messages it buffered from a sequence number on. */
interface Replayer {

  /** A replayed message: its sequence number and payload. */
  record Replayed(long seq, byte[] payload) {}

  /**
   * The buffered messages with sequence numbers in {@code [from, upTo]}, in order, as the engine
   * sent them (possibly fewer: its buffer may not reach back that far); empty when it has no
   * replay socket or did not answer in time.
   */
  List<Replayed> replay(long from, long upTo);

  Replayer NONE = (from, upTo) -> List.of();
}
