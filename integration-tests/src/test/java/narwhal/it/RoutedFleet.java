package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import narwhal.config.FleetConfig;
import narwhal.server.DemoFleet;
import narwhal.server.RouterServer;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * A simulated fleet and a router in front of it, on ephemeral loopback ports: what every
 * integration test starts. Engines are fast (1 ms per token) so tests are quick.
 *
 * <p>The router always keeps a journal (the test's own file, or a temporary one), and {@link
 * #close()} checks the measurement contract on it: every completed request has {@code ttft_s}
 * and {@code first_byte_s}, and {@code ttft_s <= first_byte_s}. So every integration test that
 * completes a request also checks that rule, on whatever path the request took.
 */
final class RoutedFleet implements AutoCloseable {

  static final String MODEL = "narwhal-sim";

  private final EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  final DemoFleet fleet;
  final RouterServer router;
  final RouterClient client;
  private final JournalFile journal;
  /** The temporary journal this fixture created (and deletes), or null for the test's own. */
  private final @Nullable Path ownJournal;
  /** Whether close() holds completed rows to ttft_s <= first_byte_s; see the constructor. */
  private final boolean sequentialHandoffs;

  private RoutedFleet(int prefill, int decode, SimOptions sim, UnaryOperator<FleetConfig> tweak,
      @Nullable Path journal) {
    ownJournal = journal == null ? temporaryJournal() : null;
    this.journal = new JournalFile(journal == null ? ownJournal : journal);
    fleet = DemoFleet.start(prefill, decode, sim, simGroup);
    try {
      // gRPC beside HTTP on an ephemeral port, as `narwhal serve` does on 50051.
      router = RouterServer.start(tweak.apply(fleet.config()), "127.0.0.1", 0, 0, this.journal.path(), boss,
          workers);
    } catch (RuntimeException | Error e) {
      // A router that did not start (a bad config in a test) must not leave the fleet running.
      fleet.close();
      shutDownLoops();
      throw e;
    }
    client = new RouterClient("http://127.0.0.1:" + router.port());
    // Only a sequential handoff (vLLM) orders prefill completion before the first decode token; a
    // concurrent one (SGLang) may answer its prefill leg after decode output began (docs/adapters.md).
    sequentialHandoffs = router.router().fleet().engines().stream()
        .allMatch(e -> e.spec().dialect().equals("vllm"));
  }

  private static Path temporaryJournal() {
    try {
      return Files.createTempFile("narwhal-it-journal-", ".jsonl");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static SimOptions.Builder fastEngines() {
    return SimOptions.builder().model(MODEL).interTokenMillis(1).prefillBaseMillis(1);
  }

  static RoutedFleet start() {
    return new RoutedFleet(2, 2, fastEngines().build(), c -> c, null);
  }

  static RoutedFleet start(int prefill, int decode, SimOptions sim, UnaryOperator<FleetConfig> tweak,
      @Nullable Path journal) {
    return new RoutedFleet(prefill, decode, sim, tweak, journal);
  }

  /** The router's journal: the file the test passed, or the fixture's temporary one. */
  JournalFile journal() {
    return journal;
  }

  SimEngine engine(String iid) {
    return fleet.engine(iid);
  }

  /** Clears what the engines recorded, so a test sees only its own traffic. */
  void clearReceived() {
    fleet.engines().forEach(SimEngine::clearReceived);
  }

  /** Waits (bounded) until no reservation is held: every request released what it took. */
  void assertReservationsReturnToZero() {
    try {
      narwhal.testing.Poll.until("reservations released", Duration.ofSeconds(5), () -> residentWork() == 0);
    } catch (AssertionError e) {
      // The counts below say which reservation is still held.
    }
    assertThat(router.router().fleet().totalResidentPrefill()).as("resident prefill").isZero();
    assertThat(router.router().fleet().totalResidentDecode()).as("resident decode").isZero();
  }

  private int residentWork() {
    return router.router().fleet().totalResidentPrefill() + router.router().fleet().totalResidentDecode();
  }

  /**
   * Stops everything, then checks the journal's measurement contract. The check runs last so a
   * violation never leaves sockets, threads or event loops behind; closing the router first also
   * flushes every journal row.
   */
  @Override
  public void close() {
    try {
      router.close();
    } finally {
      try {
        fleet.close();
      } finally {
        shutDownLoops();
      }
    }
    try {
      if (sequentialHandoffs) {
        assertCompletedRowsKeepTheMeasurementContract(journal.rows());
      }
    } finally {
      if (ownJournal != null) {
        try {
          Files.deleteIfExists(ownJournal);
        } catch (IOException e) {
          // A leftover temporary file is harmless; the assertion above is what matters.
        }
      }
    }
  }

  private void shutDownLoops() {
    simGroup.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Every completed row has ttft_s and first_byte_s, the first not after the second. */
  static void assertCompletedRowsKeepTheMeasurementContract(List<JsonNode> rows) {
    List<String> offending = new ArrayList<>();
    for (JsonNode row : rows) {
      if (!row.path("kind").asText().equals("request") || !row.path("terminal").asText().equals("completed")) {
        continue;
      }
      JsonNode ttft = row.get("ttft_s");
      JsonNode firstByte = row.get("first_byte_s");
      if (ttft == null || !ttft.isNumber() || firstByte == null || !firstByte.isNumber()
          || ttft.asDouble() > firstByte.asDouble()) {
        offending.add(row.toString());
      }
    }
    if (!offending.isEmpty()) {
      throw new AssertionError("journal rows of completed requests must have ttft_s <= first_byte_s, "
          + "both present; these do not:\n" + String.join("\n", offending));
    }
  }
}
