package narwhal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code withX} method of every config record, and every setter of each record's builder,
 * changes exactly the fields it names and leaves every other field as it was. Reflective, so a
 * field added to a record without builder support, or a wither wired to the wrong field, fails
 * here without anyone having to remember to write a test for it.
 */
class ConfigWithersTest {

  /**
   * One instance of every config record that has withers or a builder. A new such record fails
   * {@link #everyRecordWithWithersOrABuilderHasASample} until it gets one here.
   */
  private static final ServingTlsConfig SERVING_TLS =
      ServingTlsConfig.of(Path.of("chain.pem"), Path.of("key.pem")).withClientCa(Path.of("ca.pem"), ClientAuthMode.REQUIRE);

  /** The cluster section has no defaults (its endpoints are required): this sample stands in. */
  private static final ClusterConfig CLUSTER = ClusterConfig.of(List.of(URI.create("http://127.0.0.1:2379")))
      .toBuilder().clientCert(Path.of("client.pem")).clientKey(Path.of("client.key")).build();

  private static final Map<Class<?>, Object> SAMPLES =
      Map.ofEntries(
          Map.entry(FleetConfig.class,
              FleetConfig.of("m", List.of(EngineSpec.of("d0", "http://127.0.0.1:8101", EngineRole.DECODE)))),
          Map.entry(EngineConfig.class, EngineConfig.defaults()),
          Map.entry(EngineSpec.class, EngineSpec.of("p0", "http://127.0.0.1:8100", EngineRole.PREFILL)),
          Map.entry(ServingConfig.class, ServingConfig.defaults()),
          Map.entry(RecoveryConfig.class, RecoveryConfig.defaults()),
          Map.entry(ControllerConfig.class, ControllerConfig.defaults()),
          Map.entry(SloConfig.class, SloConfig.defaults()),
          Map.entry(EngineContract.class, EngineContract.defaults()),
          Map.entry(ServingTlsConfig.class, SERVING_TLS),
          Map.entry(EngineTlsConfig.class,
              new EngineTlsConfig(Path.of("ca.pem"), Path.of("client.pem"), Path.of("client.key"), true)),
          Map.entry(CacheConfig.class, CacheConfig.defaults()),
          Map.entry(ClusterConfig.class, CLUSTER));

  /**
   * Withers that set more than one field, or set a field from a value of another type, keyed by
   * {@code Record.withName/arity}: the fields each one sets. Any other wither takes one value and
   * sets the field its name spells.
   */
  private static final Map<String, List<String>> MULTI_FIELD_WITHERS =
      Map.of(
          "EngineConfig.withTokenize/2", List.of("tokenize", "tokenizeTimeoutS"),
          "EngineConfig.withEngineApiKey/2", List.of("engineApiKeyEnv", "engineApiKey"),
          "ServingConfig.withQueue/2", List.of("queueCapacity", "queueTimeoutS"),
          "ServingConfig.withRetryBackoff/2", List.of("retryBaseS", "retryCapS"),
          "ServingConfig.withRetryBudget/2", List.of("retryBudget", "retryReplenish"),
          "ServingTlsConfig.withClientCa/2", List.of("clientCa", "clientAuth"),
          "EngineTlsConfig.withClientCertificate/2", List.of("clientCert", "clientKey"),
          "CacheConfig.withDivergence/2", List.of("divergenceThreshold", "divergenceWindow"));

  @Test
  void everyRecordWithWithersOrABuilderHasASample() throws Exception {
    assertThat(SAMPLES.keySet()).containsExactlyInAnyOrderElementsOf(configRecordsWithWithersOrBuilder());
  }

  @TestFactory
  Stream<DynamicTest> everyWitherChangesOnlyItsFields() {
    return SAMPLES.entrySet().stream()
        .flatMap(e -> withers(e.getKey()).map(w -> DynamicTest.dynamicTest(key(w), () -> checkWither(w, e.getValue()))));
  }

  @TestFactory
  Stream<DynamicTest> everyBuilderSetterChangesOnlyItsField() {
    return SAMPLES.entrySet().stream()
        .flatMap(
            e -> Arrays.stream(e.getKey().getRecordComponents())
                .map(c -> DynamicTest.dynamicTest(
                    e.getKey().getSimpleName() + ".Builder." + c.getName(),
                    () -> checkBuilderSetter(e.getValue(), c))));
  }

  @Test
  void toBuilderThenBuildGivesAnEqualRecord() throws Exception {
    for (Object sample : SAMPLES.values()) {
      Object builder = sample.getClass().getMethod("toBuilder").invoke(sample);
      assertThat(builder.getClass().getMethod("build").invoke(builder)).isEqualTo(sample);
    }
  }

  @Test
  void theEnginesApiKeyWitherSetsTheKeyItNames() {
    // withEngineApiKey is checked above only for changing its two fields; this pins the value.
    EngineConfig config = EngineConfig.defaults().withEngineApiKey("ENGINE_KEY", "secret-1");
    assertThat(config.engineApiKeyEnv()).isEqualTo("ENGINE_KEY");
    assertThat(config.engineApiKey()).isEqualTo(EngineApiKey.of("secret-1"));
  }

  private static void checkWither(Method wither, Object base) throws Exception {
    Class<?> type = base.getClass();
    List<String> fields = MULTI_FIELD_WITHERS.get(key(wither));
    Object[] args = new Object[wither.getParameterCount()];
    if (fields == null) {
      assertThat(wither.getParameterCount())
          .as("%s takes one value; list it in MULTI_FIELD_WITHERS if it sets more", key(wither))
          .isEqualTo(1);
      String field = decapitalize(wither.getName().substring("with".length()));
      RecordComponent component = component(type, field);
      args[0] = changed(component.getAccessor().invoke(base), component.getType());
      Object result = wither.invoke(base, args);
      assertThat(component.getAccessor().invoke(result)).as(key(wither)).isEqualTo(args[0]);
      assertUnchangedExcept(base, result, Set.of(field), key(wither));
      return;
    }
    Class<?>[] params = wither.getParameterTypes();
    for (int i = 0; i < params.length; i++) {
      RecordComponent component = component(type, fields.get(i));
      Object current = component.getAccessor().invoke(base);
      args[i] = changed(params[i].isInstance(current) || params[i].isPrimitive() ? current : null, params[i]);
    }
    Object result = wither.invoke(base, args);
    for (String field : fields) {
      Method accessor = component(type, field).getAccessor();
      assertThat(accessor.invoke(result)).as(key(wither) + " sets " + field).isNotEqualTo(accessor.invoke(base));
    }
    assertUnchangedExcept(base, result, Set.copyOf(fields), key(wither));
  }

  private static void checkBuilderSetter(Object base, RecordComponent component) throws Exception {
    Object builder = base.getClass().getMethod("toBuilder").invoke(base);
    Method setter;
    try {
      setter = builder.getClass().getMethod(component.getName(), component.getType());
    } catch (NoSuchMethodException e) {
      throw new AssertionError(
          base.getClass().getSimpleName() + ".Builder has no setter for the field " + component.getName(), e);
    }
    Object value = changed(component.getAccessor().invoke(base), component.getType());
    setter.invoke(builder, value);
    Object result = builder.getClass().getMethod("build").invoke(builder);
    String what = base.getClass().getSimpleName() + ".Builder." + component.getName();
    assertThat(component.getAccessor().invoke(result)).as(what).isEqualTo(value);
    assertUnchangedExcept(base, result, Set.of(component.getName()), what);
  }

  private static void assertUnchangedExcept(Object base, Object result, Set<String> changed, String what)
      throws ReflectiveOperationException {
    for (RecordComponent c : base.getClass().getRecordComponents()) {
      if (!changed.contains(c.getName())) {
        assertThat(c.getAccessor().invoke(result))
            .as("%s must leave %s alone", what, c.getName())
            .isEqualTo(c.getAccessor().invoke(base));
      }
    }
  }

  /** A value of {@code type} that differs from {@code current} (which may be null). */
  private static Object changed(@Nullable Object current, Class<?> type) throws ReflectiveOperationException {
    if (type == boolean.class || type == Boolean.class) {
      return current == null || !(Boolean) current;
    }
    if (type == int.class || type == Integer.class) {
      return current == null ? 1 : (Integer) current + 1;
    }
    if (type == long.class || type == Long.class) {
      return current == null ? 1L : (Long) current + 1;
    }
    if (type == double.class || type == Double.class) {
      return current == null ? 1.5 : (Double) current + 1.5;
    }
    if (type == String.class) {
      return current == null ? "changed" : current + "-changed";
    }
    if (type.isEnum()) {
      Object[] constants = type.getEnumConstants();
      return current == null ? constants[0] : constants[(((Enum<?>) current).ordinal() + 1) % constants.length];
    }
    if (type == URI.class) {
      return URI.create(current == null ? "http://changed.example:9" : current + "9");
    }
    if (type == Path.class) {
      return Path.of(current == null ? "changed.pem" : current + "-changed");
    }
    if (type == ClusterConfig.class && current == null) {
      return CLUSTER;
    }
    if (type == ClusterPassword.class) {
      return ClusterPassword.of(current == null || !((ClusterPassword) current).isSet() ? "changed-pw" : "other-pw");
    }
    if (type == List.class && current instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof URI) {
      // ClusterConfig.endpoints
      List<Object> endpoints = new ArrayList<>(list);
      endpoints.add(URI.create("http://127.0.0.1:2380"));
      return List.copyOf(endpoints);
    }
    if (type == ServingTlsConfig.class && current == null) {
      return SERVING_TLS; // no defaults: a certificate and a key are required
    }
    if (type == EngineApiKey.class) {
      return EngineApiKey.of(current == null || !((EngineApiKey) current).isSet() ? "changed-key" : "other-key");
    }
    if (type == List.class) {
      // The only list field is FleetConfig.engines.
      List<Object> engines = new ArrayList<>(current == null ? List.of() : (List<?>) current);
      engines.add(EngineSpec.of("changed", "http://127.0.0.1:9", EngineRole.BOTH));
      return List.copyOf(engines);
    }
    if (type == Map.class) {
      return Map.of("changed", current == null ? 1 : ((Map<?, ?>) current).size() + 1);
    }
    if (type.isRecord()) {
      if (current == null) {
        return type.getMethod("defaults").invoke(null);
      }
      // Every component changed, through the canonical constructor.
      RecordComponent[] components = type.getRecordComponents();
      Class<?>[] types = Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
      Object[] values = new Object[components.length];
      for (int i = 0; i < components.length; i++) {
        values[i] = changed(components[i].getAccessor().invoke(current), types[i]);
      }
      Constructor<?> canonical = type.getDeclaredConstructor(types);
      try {
        return canonical.newInstance(values);
      } catch (InvocationTargetException e) {
        throw new AssertionError("cannot build a changed " + type.getSimpleName(), e.getCause());
      }
    }
    return fail("no changed value for a field of type %s: teach changed() about it", type.getName());
  }

  private static Stream<Method> withers(Class<?> type) {
    return Arrays.stream(type.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
        .filter(m -> m.getName().startsWith("with") && m.getReturnType() == type)
        .sorted((a, b) -> key(a).compareTo(key(b)));
  }

  private static RecordComponent component(Class<?> type, String name) {
    return Arrays.stream(type.getRecordComponents())
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(type.getSimpleName() + " has no field " + name));
  }

  private static String key(Method wither) {
    return wither.getDeclaringClass().getSimpleName() + "." + wither.getName() + "/" + wither.getParameterCount();
  }

  private static String decapitalize(String name) {
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }

  /** The records of narwhal.config (read from its classes directory) with withers or a builder. */
  private static Set<Class<?>> configRecordsWithWithersOrBuilder() throws IOException, URISyntaxException {
    Path classes = Path.of(FleetConfig.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path dir = classes.resolve("narwhal/config");
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".class") && !n.contains("$"))
          .map(n -> load("narwhal.config." + n.substring(0, n.length() - ".class".length())))
          .filter(Class::isRecord)
          .filter(c -> withers(c).findAny().isPresent() || hasToBuilder(c))
          .collect(Collectors.toSet());
    }
  }

  private static boolean hasToBuilder(Class<?> type) {
    return Arrays.stream(type.getMethods()).anyMatch(m -> m.getName().equals("toBuilder"));
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }
}
