package narwhal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ServiceLoader;
import java.util.stream.Collectors;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.testing.TestDialect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The core is tested against {@link TestDialect} alone: no engine adapter module and no engine
 * simulator may reach router-core's test class path, or the core's tests could lean on one engine
 * family's wire again without anyone noticing.
 */
class ClassPathTest {

  @ParameterizedTest
  @ValueSource(strings = {
      "narwhal.engines.vllm.VllmDialect",
      "narwhal.engines.sglang.SglangDialect",
      "narwhal.adapters.kit.AdapterConformanceSuite",
      "narwhal.sim.SimEngine"})
  void noEngineModuleIsOnTheTestClassPath(String className) {
    assertThatThrownBy(() -> Class.forName(className, false, ClassPathTest.class.getClassLoader()))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void theOnlyRegisteredDialectIsTheTestDialect() {
    assertThat(ServiceLoader.load(EngineDialect.class).stream().map(p -> p.type().getName())
        .collect(Collectors.toList())).containsExactly(TestDialect.class.getName());
    assertThat(EngineDialects.discover().get(TestDialect.NAME)).isInstanceOf(TestDialect.class);
  }
}
