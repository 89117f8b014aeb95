package narwhal.core.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.testing.ManualScheduler;
import narwhal.time.Scheduler;
import org.junit.jupiter.api.Test;

/** The binder on a manual clock: readings at start, at readmission, periodically, and what they change. */
class ProfileBinderTest {

  private static final List<EngineSpec> ENGINES = List.of(
      EngineSpec.of("p0", "http://10.0.0.1:8000", EngineRole.PREFILL),
      EngineSpec.of("d0", "http://10.0.0.2:8000", EngineRole.DECODE));

  /** A generation source the test answers by hand. */
  private static final class Generations implements GenerationSource {
    final List<String> asked = new ArrayList<>();
    final List<CompletableFuture<EngineGeneration>> pending = new ArrayList<>();

    @Override
    public CompletableFuture<EngineGeneration> current(EngineSpec engine, Scheduler loop) {
      asked.add(engine.iid());
      CompletableFuture<EngineGeneration> f = new CompletableFuture<>();
      pending.add(f);
      return f;
    }

    void answer(int index, EngineGeneration g) {
      pending.get(index).complete(g);
    }
  }

  private final ManualScheduler loop = new ManualScheduler();
  private final Generations generations = new Generations();
  private final ProfileBook book = ProfileBook.empty();
  private final ProfilesDocument rows = new ProfilesDocument(List.of(
      ProfileAssignmentTest.row("p0", "1", 0.01, 0.005), ProfileAssignmentTest.row("d0", "1", 0.02, 0.006)));
  private final ProfileBinder binder = new ProfileBinder(ENGINES, rows, book, generations, loop,
      TimeUnit.SECONDS.toNanos(10));

  @Test
  void start_installsTheRowsAtOnce_thenTheVerdictOfTheReadings() {
    CompletableFuture<Map<String, ProfileStatus>> started = binder.start();

    assertThat(book.status("d0").source()).as("before any reading: the rows as they stand").isEqualTo(ProfileSource.OWN);
    assertThat(started).isNotDone();
    generations.answer(0, EngineGeneration.known("1"));
    generations.answer(1, EngineGeneration.known("2"));

    assertThat(started).isDone();
    assertThat(started.getNow(null).get("d0").source()).isEqualTo(ProfileSource.FLEET);
    assertThat(book.status("p0").source()).isEqualTo(ProfileSource.OWN);
    assertThat(book.status("d0").reason()).startsWith("stale generation: the row was measured on generation 1");
  }

  @Test
  void recheck_rereadsThatEngine_andARestartMakesItsRowStale() {
    binder.start();
    generations.answer(0, EngineGeneration.known("1"));
    generations.answer(1, EngineGeneration.known("1"));
    assertThat(book.status("d0").source()).isEqualTo(ProfileSource.OWN);

    binder.recheck("d0");

    assertThat(generations.asked).containsExactly("p0", "d0", "d0");
    generations.answer(2, EngineGeneration.known("2"));
    assertThat(book.status("d0").source()).isEqualTo(ProfileSource.FLEET);
    assertThat(book.get("d0").prefill().baseS()).as("p0's row is the only fresh one").isEqualTo(0.01);
  }

  @Test
  void everyEngineIsReread_periodically_andAnUnknownReadingKeepsTheLastKnownGeneration() {
    binder.start();
    generations.answer(0, EngineGeneration.known("1"));
    generations.answer(1, EngineGeneration.known("2"));
    assertThat(book.status("d0").source()).isEqualTo(ProfileSource.FLEET);

    loop.advance(10, TimeUnit.SECONDS);
    assertThat(generations.asked).containsExactly("p0", "d0", "p0", "d0");
    generations.answer(2, EngineGeneration.known("1"));
    generations.answer(3, EngineGeneration.unknown("no answer within 5 s (engine.health_timeout_s)"));

    assertThat(book.status("d0").source()).as("an attestation that did not answer proves nothing")
        .isEqualTo(ProfileSource.FLEET);
    loop.advance(10, TimeUnit.SECONDS);
    assertThat(generations.asked).hasSize(6);
  }

  @Test
  void close_stopsThePeriodicReadings() {
    binder.start();
    generations.answer(0, EngineGeneration.known("1"));
    generations.answer(1, EngineGeneration.known("1"));

    binder.close();
    loop.advance(60, TimeUnit.SECONDS);

    assertThat(generations.asked).hasSize(2);
    assertThat(loop.pendingTasks()).isZero();
  }
}
