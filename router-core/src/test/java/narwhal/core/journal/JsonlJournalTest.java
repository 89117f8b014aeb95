package narwhal.core.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import narwhal.config.EngineRole;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.Fleet;
import narwhal.core.legs.EngineClient;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.spi.EngineDialects;
import narwhal.testing.Poll;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.TestDialect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonlJournalTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void stringsThatAreNotValidUtf16_areWrittenEscaped_andTheWriterGoesOn(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("j.jsonl");
    List<String> bad = List.of("\ud800", "\udfff", "\udfff\ud800", "x\ud83dy", "tail\udbff");
    try (JsonlJournal journal = new JsonlJournal(file, Map.of("run", "r"))) {
      for (String s : bad) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("kind", "request");
        row.put("model", s);
        // Row keys are the router's own; values carry client text, nested too.
        row.put("nested", List.of(s, Map.of("k", s)));
        journal.record(row);
      }
      journal.record(Map.of("kind", "request", "model", "emoji \ud83d\ude00 stays"));
    }
    byte[] bytes = Files.readAllBytes(file);
    assertThat(strictUtf8(bytes)).isTrue();
    String text = new String(bytes, StandardCharsets.UTF_8);
    List<JsonNode> rows = text.lines().map(JsonlJournalTest::json).toList();
    assertThat(rows).hasSize(1 + bad.size() + 1);
    for (int i = 0; i < bad.size(); i++) {
      // Read back, each escape is the very code unit the row held.
      assertThat(rows.get(1 + i).path("model").asText()).isEqualTo(bad.get(i));
      assertThat(rows.get(1 + i).path("nested").path(1).path("k").asText()).isEqualTo(bad.get(i));
    }
    assertThat(text).contains("\"\\ud800\"", "\"\\udfff\\ud800\"", "emoji \ud83d\ude00 stays");
  }

  @Test
  void aRowThatCannotBeSerialised_isDroppedAndCounted_andLaterRowsAreWritten(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("j.jsonl");
    JsonlJournal journal = new JsonlJournal(file, Map.of());
    journal.record(Map.of("kind", "request", "bad", new Object()));
    journal.record(Map.of("kind", "request", "rid", "after"));
    journal.close();
    assertThat(journal.droppedRows(JournalDropReason.UNENCODABLE).getCount()).isEqualTo(1);
    assertThat(Files.readAllLines(file)).hasSize(2).last().asString().contains("\"after\"");
  }

  @Test
  void failingWrites_makeTheRouterNotReady_countInMetrics_andKeepTheQueueBounded(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("j.jsonl");
    FullDisk disk = new FullDisk();
    JournalSettings settings = JournalSettings.defaults().withBounds(8, 64 * 1024)
        .withIntervals(Duration.ofMillis(5), Duration.ofSeconds(10)).withOpener(disk);
    JsonlJournal journal = new JsonlJournal(file, Map.of("run", "r"), settings);
    FleetConfig config = FleetConfig.of("m", List.of(
        TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        TestDialect.engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE)));
    MetricRegistry registry = new MetricRegistry();
    RouterMetrics metrics = new RouterMetrics(registry, config.slo());
    metrics.watchJournal(journal);
    DisaggregatedRouter router = new DisaggregatedRouter(config, new Fleet(config.engines()),
        new EngineClient(new ScriptedTransport(), EngineDialects.of(new TestDialect())), journal, Clock.systemUTC(),
        new SplittableRandom(1));
    List<String> kept = new ArrayList<>();
    try {
      Poll.until("the meta row", () -> lines(file) == 1);
      assertThat(router.notReadyReason()).isNull();

      disk.full = true;
      journal.record(row("first"));
      Poll.until("the failure noticed", () -> journal.notWritingReason() != null);
      assertThat(router.notReadyReason()).startsWith("journal not writable: cannot write " + file)
          .contains("No space left on device");
      assertThat(registry.counter("narwhal_journal_write_errors_total").getCount()).isPositive();
      assertThat(gauge(registry, "narwhal_journal_failing")).isEqualTo(1);

      // 100 000 rows of 1 KiB (100 MiB) while nothing can be written: all but the bound are
      // dropped and counted, and the heap does not keep them.
      long heapBefore = heapAfterGc();
      String filler = "x".repeat(1024);
      for (int i = 0; i < 100_000; i++) {
        journal.record(row("r" + i + filler));
        if (i < 8) {
          kept.add("r" + i + filler);
        }
      }
      assertThat(journal.queuedRows()).isEqualTo(8);
      assertThat(journal.queuedBytes()).isLessThanOrEqualTo(64 * 1024);
      assertThat(journal.droppedRows(JournalDropReason.QUEUE_FULL).getCount()).isEqualTo(100_000 - 8);
      assertThat(registry.counter("narwhal_journal_dropped_rows_total{reason=\"queue_full\"}").getCount())
          .isEqualTo(100_000 - 8);
      assertThat(gauge(registry, "narwhal_journal_queued_rows")).isEqualTo(8);
      assertThat(heapAfterGc() - heapBefore).as("heap growth").isLessThan(32L << 20);

      // The disk recovers: the held rows are written once each, whole, and the router is ready.
      disk.full = false;
      Poll.until("writes resume", () -> journal.notWritingReason() == null);
      assertThat(router.notReadyReason()).isNull();
      assertThat(gauge(registry, "narwhal_journal_failing")).isEqualTo(0);
    } finally {
      journal.close();
    }
    List<JsonNode> rows = Files.readAllLines(file).stream().map(JsonlJournalTest::json).toList();
    List<String> rids = rows.stream().skip(1).map(r -> r.path("rid").asText()).toList();
    List<String> expected = new ArrayList<>(List.of("first"));
    expected.addAll(kept);
    assertThat(rids).containsExactlyElementsOf(expected);
    assertThat(disk.partialWrites).as("a write cut short by the full disk was resumed, not repeated").isPositive();
  }

  @Test
  void reopen_afterTheFileWasMoved_writesLaterRowsToAFreshFileAtThePath(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("j.jsonl");
    Path moved = dir.resolve("j.jsonl.1");
    JsonlJournal journal = new JsonlJournal(file, Map.of("run", "r"));
    journal.record(row("a"));
    Poll.until("row a", () -> lines(file) == 2);
    Files.move(file, moved);
    journal.record(row("b")); // the open file moved with its name: b follows a
    Poll.until("row b", () -> lines(moved) == 3);
    journal.reopen();
    journal.record(row("c"));
    journal.close();
    assertThat(journal.reopens().getCount()).isEqualTo(1);
    assertThat(Files.readAllLines(moved)).extracting(l -> json(l).path("rid").asText()).containsExactly("", "a", "b");
    List<JsonNode> fresh = Files.readAllLines(file).stream().map(JsonlJournalTest::json).toList();
    assertThat(fresh).extracting(r -> r.path("kind").asText()).containsExactly("meta", "request");
    assertThat(fresh.get(1).path("rid").asText()).isEqualTo("c");
  }

  @Test
  void openingAnExistingJournal_appends_andATornLastRowGetsItsOwnLine(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("j.jsonl");
    try (JsonlJournal journal = new JsonlJournal(file, Map.of("run", "one"))) {
      journal.record(row("a"));
    }
    // A crash mid-row leaves a line without its newline.
    Files.writeString(file, "{\"kind\":\"requ", StandardOpenOption.APPEND);
    try (JsonlJournal journal = new JsonlJournal(file, Map.of("run", "two"))) {
      journal.record(row("b"));
    }
    List<String> lines = Files.readAllLines(file);
    assertThat(lines).hasSize(5);
    assertThat(json(lines.get(0)).path("run").asText()).isEqualTo("one");
    assertThat(json(lines.get(1)).path("rid").asText()).isEqualTo("a");
    assertThat(lines.get(2)).isEqualTo("{\"kind\":\"requ");
    assertThat(json(lines.get(3)).path("run").asText()).isEqualTo("two");
    assertThat(json(lines.get(4)).path("rid").asText()).isEqualTo("b");
  }

  @Test
  void dropsAreReportedAtMostOncePerInterval() {
    long second = 1_000_000_000L;
    DropReport report = new DropReport(10 * second, 0);
    long[] full = {0};
    assertThat(report.due(11 * second, r -> 0)).as("nothing dropped").isNull();
    full[0] = 5;
    assertThat(report.due(20 * second, r -> r == JournalDropReason.QUEUE_FULL ? full[0] : 0))
        .as("within the interval").isNull();
    assertThat(report.nanosToNext(20 * second)).isEqualTo(second);
    assertThat(report.due(21 * second, r -> r == JournalDropReason.QUEUE_FULL ? full[0] : 0))
        .isEqualTo("5 queue_full (5 in all)");
    full[0] = 7;
    assertThat(report.due(30 * second, r -> r == JournalDropReason.QUEUE_FULL ? full[0] : 0)).isNull();
    assertThat(report.due(31 * second, r -> r == JournalDropReason.QUEUE_FULL ? full[0] : 0))
        .isEqualTo("2 queue_full (7 in all)");
  }

  @Test
  void escapeLoneSurrogates_keepsPairsAndEverythingElse() {
    assertThat(JournalLines.escapeLoneSurrogates("plain")).isEqualTo("plain");
    assertThat(JournalLines.escapeLoneSurrogates("\ud83d\ude00")).isEqualTo("\ud83d\ude00");
    assertThat(JournalLines.escapeLoneSurrogates("a\udfff\ud800b")).isEqualTo("a\\udfff\\ud800b");
    assertThat(JournalLines.escapeLoneSurrogates("\ud800\ud83d\ude00\ud800")).isEqualTo("\\ud800\ud83d\ude00\\ud800");
  }

  /** A disk that fills up on demand: the first write after that lands half its bytes, the rest fail. */
  private static final class FullDisk implements JournalOpener {
    volatile boolean full;
    volatile int partialWrites;

    @Override
    public WritableByteChannel open(Path file) throws IOException {
      FileChannel real = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
      return new WritableByteChannel() {
        private boolean cut;

        @Override
        public int write(ByteBuffer src) throws IOException {
          if (!full) {
            cut = false;
            return real.write(src);
          }
          if (!cut && src.remaining() > 1) {
            cut = true;
            partialWrites++;
            ByteBuffer half = src.slice();
            half.limit(src.remaining() / 2);
            int n = real.write(half);
            src.position(src.position() + n);
            return n;
          }
          throw new IOException("No space left on device");
        }

        @Override
        public boolean isOpen() {
          return real.isOpen();
        }

        @Override
        public void close() throws IOException {
          real.close();
        }
      };
    }
  }

  private static Map<String, Object> row(String rid) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("kind", "request");
    row.put("rid", rid);
    return row;
  }

  private static long gauge(MetricRegistry registry, String name) {
    Gauge<?> g = registry.getGauges().get(name);
    return ((Number) g.getValue()).longValue();
  }

  private static long lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (IOException e) {
      return -1;
    }
  }

  private static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static JsonNode json(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + line, e);
    }
  }

  private static boolean strictUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
