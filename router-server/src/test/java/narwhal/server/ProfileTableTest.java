package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.profile.DecodeSample;
import narwhal.core.profile.PrefillSample;
import narwhal.core.profile.ProfileFits;
import narwhal.core.profile.ProfileRow;
import narwhal.core.profile.measure.EngineMeasurement;
import org.junit.jupiter.api.Test;

/**
 * {@code narwhal profile}'s report: a row written from batches smaller than {@code --max-seqs}
 * asked for is called out as a WARNING saying what to change, not left to a note, since the role
 * controller reads the largest batch as the engine's capacity.
 */
class ProfileTableTest {

  private static final EngineSpec D0 = EngineSpec.of("d0", "http://10.0.0.2:8000", EngineRole.DECODE);

  /** A passing measurement whose batches went up to {@code largestBatch} streams. */
  private static EngineMeasurement measured(int largestBatch) {
    List<PrefillSample> prefill = new ArrayList<>();
    for (long l = 32; l <= 4096; l *= 2) {
      prefill.add(new PrefillSample(l, 0.01 + 1e-4 * l));
    }
    List<DecodeSample> decode = new ArrayList<>();
    for (int k = 1; k <= largestBatch; k *= 2) {
      for (long tokens : new long[] {64L * k, 1024L * k}) {
        decode.add(new DecodeSample(tokens, k, 0.01 + 1e-7 * tokens + 1e-3 * k));
      }
    }
    ProfileFits.Prefill p = ProfileFits.prefill(prefill);
    ProfileFits.Decode d = ProfileFits.decode(decode);
    ProfileRow row = new ProfileRow("d0", D0.url().toString(), "1", Instant.parse("2026-12-04T00:00:00Z"), p.model(),
        p.quality().samples(), d.model(), d.quality().samples(), d.quality().mape(), d.quality().cvMape());
    return new EngineMeasurement("d0", p, d, row, List.of(), List.of("the budget let decode measure 6 of 12 batches"),
        0);
  }

  @Test
  void aRowFromBatchesSmallerThanAskedFor_isAWarningSayingWhatToChange() {
    List<String> lines = ProfileTable.lines(List.of(new ProfileRun.Result(D0, measured(4), "plan", null, 32, 15)),
        0.05, 0.13);

    assertThat(lines).contains("d0 WARNING: decode was measured with batches of at most 4 streams, not the 32 asked "
        + "for (--max-seqs): the role controller reads 4 as this engine's sequence capacity and will judge its decode "
        + "pool full at 4 streams. Raise --budget-s (this engine had 15 s), lower --decode-tokens, or set --max-seqs "
        + "to the batch the engine really runs, and profile it again");
  }

  @Test
  void aRowFromEveryBatchAskedFor_hasNoWarning() {
    List<String> lines = ProfileTable.lines(List.of(new ProfileRun.Result(D0, measured(32), "plan", null, 32, 60)),
        0.05, 0.13);

    assertThat(lines).noneMatch(l -> l.contains("WARNING"));
  }
}
