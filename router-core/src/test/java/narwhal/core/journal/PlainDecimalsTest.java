package narwhal.core.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal writes every float as a plain decimal: no exponent, no float noise. */
class PlainDecimalsTest {

  @Test
  void tinyHugeAndNoisyValues_arePlainDecimals() {
    assertThat(PlainDecimals.format(123_000 / 1e9)).isEqualTo("0.000123");
    assertThat(PlainDecimals.format(1 / 1e9)).isEqualTo("0.000000001");
    assertThat(PlainDecimals.format(1_712_345_678.123457)).isEqualTo("1712345678.123457");
    assertThat(PlainDecimals.format(600.0)).isEqualTo("600.0");
    assertThat(PlainDecimals.format(0.0)).isEqualTo("0.0");
    // Float noise past nanosecond resolution is rounded away.
    assertThat(PlainDecimals.format(0.1 + 0.2)).isEqualTo("0.3");
    assertThat(PlainDecimals.format(Double.NaN)).isNull();
  }

  @Test
  void everyNanosecondDurationUpToTenDays_readsBackAsItsExactNanoseconds() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    for (int i = 0; i < 100_000; i++) {
      long nanos = random.nextLong(10L * 86_400 * 1_000_000_000L);
      String text = PlainDecimals.format(nanos / 1e9);
      assertThat(new java.math.BigDecimal(text).movePointRight(9).longValueExact()).as(text).isEqualTo(nanos);
      assertThat(text).doesNotContain("E").doesNotContain("e");
    }
  }

  @Test
  void theJournalFileHoldsPlainDecimals(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("j.jsonl");
    try (JsonlJournal journal = new JsonlJournal(file, Map.of("run", "r"))) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("kind", "request");
      row.put("arrived", 1_712_345_678.5);
      row.put("queue_wait_s", 123_000 / 1e9);
      row.put("duration_s", 600.0);
      row.put("ratio", 0.25f);
      row.put("list", List.of(1.0E-7));
      journal.record(row);
    }
    String line = Files.readAllLines(file).get(1);
    assertThat(line).isEqualTo("{\"kind\":\"request\",\"arrived\":1712345678.5,\"queue_wait_s\":0.000123,"
        + "\"duration_s\":600.0,\"ratio\":0.25,\"list\":[0.0000001]}");
  }
}
