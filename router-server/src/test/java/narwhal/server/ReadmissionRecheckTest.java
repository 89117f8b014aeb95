package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.ProfileBinder;
import narwhal.core.profile.ProfileBook;
import narwhal.core.profile.ProfilesDocument;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.Test;

/** Readmissions reach the binder, once it is attached; other breaker events do not. */
class ReadmissionRecheckTest {

  @Test
  void aReadmittedEngine_hasItsGenerationReadAgain() {
    List<String> asked = new ArrayList<>();
    ManualScheduler loop = new ManualScheduler();
    ProfileBinder binder = new ProfileBinder(List.of(EngineSpec.of("d0", "http://10.0.0.2:8000", EngineRole.DECODE)),
        ProfilesDocument.empty(), ProfileBook.empty(), (engine, l) -> {
          asked.add(engine.iid());
          return CompletableFuture.completedFuture(EngineGeneration.known("1"));
        }, loop, 0);
    ReadmissionRecheck recheck = new ReadmissionRecheck();

    recheck.record("readmitted", Map.of("iid", "d0"));
    recheck.attach(binder);
    recheck.record("engine_ejected", Map.of("iid", "d0"));
    recheck.record("readmitted", Map.of("iid", "d0"));
    recheck.record("readmitted", Map.of("iid", "unknown"));

    assertThat(asked).as("only the readmission after attach, of an engine the fleet has").containsExactly("d0");
  }
}
