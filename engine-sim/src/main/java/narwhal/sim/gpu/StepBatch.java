package narwhal.sim.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * What one step computes: a token (decode) or a prompt chunk (prefill) for each sequence in it,
 * planned at the step's start; and what the step costs under the engine's {@link GpuProfile}.
 */
final class StepBatch {

  /**
   * One sequence's share of the step.
   *
   * @param tokens tokens computed (1 for a decode)
   * @param decode a decode rather than a prefill chunk
   * @param produces the sequence produces a token at the step's end (a decode, or the chunk that
   *     completes a prefill)
   */
  record Slot(Sequence sequence, int tokens, boolean decode, boolean produces) {}

  private final GpuProfile profile;
  private final List<Slot> slots = new ArrayList<>();
  private int decodes;
  private long residentTokens;
  private double prefillMillis;

  StepBatch(GpuProfile profile) {
    this.profile = profile;
  }

  /** Adds {@code tokens} of {@code sequence} as it stands now (before the step changes it). */
  void add(Sequence sequence, int tokens, boolean produces) {
    boolean decode = sequence.decoding;
    if (decode) {
      decodes++;
      residentTokens += sequence.context();
    } else {
      prefillMillis += profile.prefillChunkMillis(sequence.computed, (long) sequence.computed + tokens);
      if (sequence.computed > 0 && sequence.computed == sequence.prefillFrom) {
        // The first chunk after a prefix-cache hit still pays the prompt's fixed cost.
        prefillMillis += profile.prefillBaseMillis();
      }
    }
    slots.add(new Slot(sequence, tokens, decode, produces));
  }

  boolean isEmpty() {
    return slots.isEmpty();
  }

  List<Slot> slots() {
    return slots;
  }

  /** The step's duration before jitter. */
  double millis() {
    return profile.decodeMillis(residentTokens, decodes) + prefillMillis;
  }
}
