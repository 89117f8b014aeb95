package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module map holds: no package cycle among the main classes of every Narwhal module, no package
 * split across two modules (a split package hides cycles and breaks the map), and the few
 * dependency rules the architecture promises. Read from the compiled classes with the JDK's
 * {@code jdeps}, so a new import that breaks a rule fails the build where it is made.
 *
 * <p>jdeps reads class constants only; a class literal inside an annotation (picocli's {@code
 * subcommands = X.class}) is stored as a descriptor string, which it misses. {@link
 * ClassFileReferences} reads those from every class file's constant pool, and their edges join
 * jdeps' before any rule is checked.
 *
 * <p>Every main module reaches this test's class path through the test-scoped dependencies of
 * integration-tests (bench included); the JMH module is a benchmark harness and is left out.
 */
class ModuleStructureTest {

  /** A jdeps package line: "   narwhal.a   -> some.package   where". */
  private static final Pattern EDGE = Pattern.compile("^\\s+(narwhal\\.\\S+)\\s+->\\s+(\\S+)\\s");

  /** Narwhal package → every package it uses (libraries included). */
  private static Map<String, Set<String>> uses;
  /** Narwhal package → the Narwhal packages it uses. */
  private static Map<String, Set<String>> edges;
  private static Map<String, String> moduleOfPackage;
  /** Top-level hand-written main class simple name → every fully qualified class with that name. */
  private static Map<String, Set<String>> classesBySimpleName;

  @BeforeAll
  static void readTheModules() {
    List<Path> modules = narwhalModulesOnClassPath();
    assertThat(modules).as("Narwhal modules on the test class path").hasSizeGreaterThanOrEqualTo(14);
    moduleOfPackage = new TreeMap<>();
    Map<String, Set<String>> splits = new TreeMap<>();
    for (Path module : modules) {
      for (String pkg : packagesIn(module)) {
        String previous = moduleOfPackage.putIfAbsent(pkg, moduleName(module));
        if (previous != null && !previous.equals(moduleName(module))) {
          splits.computeIfAbsent(pkg, p -> new TreeSet<>()).addAll(List.of(previous, moduleName(module)));
        }
      }
    }
    assertThat(splits).as("packages split across modules").isEmpty();
    uses = packageEdges(modules);
    edges = new TreeMap<>();
    uses.forEach((from, tos) -> tos.stream().filter(to -> to.startsWith("narwhal."))
        .forEach(to -> edges.computeIfAbsent(from, k -> new TreeSet<>()).add(to)));
    assertThat(edges).as("jdeps found the packages' dependencies").containsKey("narwhal.core.request");
    classesBySimpleName = new TreeMap<>();
    for (Path module : modules) {
      forEachClass(module, (name, bytes) -> {
        String from = ClassFileReferences.packageOf(name);
        for (String ref : ClassFileReferences.of(bytes)) {
          String to = ClassFileReferences.packageOf(ref);
          if (!to.equals(from)) {
            edges.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
          }
        }
        String simple = name.substring(name.lastIndexOf('/') + 1);
        // Generated code (Protobuf messages, the gRPC stub) is named by the .proto files.
        boolean generated = name.startsWith("narwhal/proto/") || name.startsWith("narwhal/grpc/v1/");
        if (!simple.contains("$") && !simple.equals("package-info") && !generated) {
          classesBySimpleName.computeIfAbsent(simple, k -> new TreeSet<>()).add(name.replace('/', '.'));
        }
      });
    }
  }

  @Test
  void classLiteralsInAnnotationsAreDependenciesToo() throws IOException {
    // A @Command(subcommands = ...) class literal, as in the bench harness before its cycle was broken.
    try (var in = ModuleStructureTest.class.getResourceAsStream("ModuleStructureTest$Annotated.class")) {
      assertThat(ClassFileReferences.of(in)).contains("narwhal/it/ClassFileReferences");
    }
  }

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @interface Names {
    Class<?>[] value();
  }

  @Names(ClassFileReferences.class)
  static final class Annotated {}

  @Test
  void noTwoMainClassesShareASimpleName() {
    Map<String, Set<String>> shared = new TreeMap<>();
    classesBySimpleName.forEach((simple, classes) -> {
      if (classes.size() > 1) {
        shared.put(simple, classes);
      }
    });
    assertThat(shared).as("main classes whose simple names clash (a reader, a stack trace or a search cannot tell them apart)")
        .isEmpty();
  }

  @Test
  void noPackageCycleAnywhere() {
    assertThat(cycles(edges)).as("package cycles (each set depends on itself through the others)").isEmpty();
  }

  @Test
  void theApiAndTheConfigDependOnNoOrchestration() {
    assertThat(dependenciesOf("narwhal.api", "narwhal.spi", "narwhal.time", "narwhal.config"))
        .as("router-api and fleet-config see only each other and the protocol messages")
        .allMatch(p -> p.startsWith("narwhal.api") || p.startsWith("narwhal.spi") || p.startsWith("narwhal.time")
            || p.startsWith("narwhal.config") || p.startsWith("narwhal.proto"));
    assertThat(dependenciesOf("narwhal.config")).as("fleet-config depends on no other Narwhal package")
        .allMatch(p -> p.startsWith("narwhal.config"));
  }

  @Test
  void frontEndsDoNotReachIntoEngineIo() {
    assertThat(dependenciesOf("narwhal.http", "narwhal.grpc"))
        .as("front-ends compile against the API, the codec and the Netty runtime, never the engine transport")
        .noneMatch(p -> p.startsWith("narwhal.engine.http"))
        .noneMatch(p -> p.startsWith("narwhal.core.request") || p.startsWith("narwhal.core.legs"));
  }

  @Test
  void enginesAdaptersCompileAgainstTheSpiOnly() {
    assertThat(dependenciesOf("narwhal.engines.vllm", "narwhal.engines.sglang"))
        .as("an adapter sees the SPI, the OpenAI codec and the fleet config, not the orchestration")
        .noneMatch(p -> p.startsWith("narwhal.core."))
        .noneMatch(p -> p.startsWith("narwhal.engine.http"));
  }

  @Test
  void onlyTheClusterModuleKnowsEtcd() {
    Set<String> etcdUsers = new TreeSet<>();
    uses.forEach((from, tos) -> {
      if (tos.stream().anyMatch(to -> to.startsWith("io.etcd"))) {
        etcdUsers.add(from);
      }
    });
    assertThat(etcdUsers).as("packages that use the etcd client: the cluster module only").isNotEmpty()
        .allMatch(p -> p.startsWith("narwhal.cluster"));
    assertThat(dependenciesOf("narwhal.core", "narwhal.api", "narwhal.spi", "narwhal.http", "narwhal.grpc"))
        .as("the core and the front-ends use the cluster through their own hooks, never its module")
        .noneMatch(p -> p.startsWith("narwhal.cluster"));
  }

  @Test
  void grpcIsUsedOnlyWhereItIsServed() {
    assertThat(moduleOfPackage).containsEntry("narwhal.grpc.v1", moduleOfPackage.get("narwhal.grpc"));
    Set<String> grpcUsers = new TreeSet<>();
    uses.forEach((from, tos) -> {
      if (tos.stream().anyMatch(to -> to.startsWith("io.grpc"))) {
        grpcUsers.add(from);
      }
    });
    assertThat(grpcUsers).as("packages that use gRPC: the front-end, its generated stub and the assembly")
        .isNotEmpty()
        .allMatch(p -> p.startsWith("narwhal.grpc") || p.equals("narwhal.server") || p.startsWith("narwhal.server."));
  }

  /** Packages the given packages (and their sub-packages) depend on, themselves excluded. */
  private static Set<String> dependenciesOf(String... roots) {
    Set<String> out = new TreeSet<>();
    edges.forEach((from, tos) -> {
      for (String root : roots) {
        if (from.equals(root) || from.startsWith(root + ".")) {
          out.addAll(tos);
        }
      }
    });
    out.removeIf(p -> Stream.of(roots).anyMatch(r -> p.equals(r) || p.startsWith(r + ".")));
    return out;
  }

  private static List<Path> narwhalModulesOnClassPath() {
    List<Path> out = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path path = Path.of(entry);
      boolean reactorClasses = path.endsWith(Path.of("target", "classes"));
      boolean installedJar = path.getFileName().toString().matches("narwhal-.*\\.jar");
      if ((reactorClasses || installedJar) && Files.exists(path) && !entry.contains("integration-tests")) {
        out.add(path);
      }
    }
    return out;
  }

  private static String moduleName(Path module) {
    return module.endsWith(Path.of("target", "classes")) ? module.getParent().getParent().getFileName().toString()
        : module.getFileName().toString();
  }

  private static Set<String> packagesIn(Path module) {
    Set<String> out = new TreeSet<>();
    try {
      if (Files.isDirectory(module)) {
        try (Stream<Path> files = Files.walk(module)) {
          files.filter(f -> f.toString().endsWith(".class"))
              .forEach(f -> out.add(module.relativize(f.getParent()).toString().replace(java.io.File.separatorChar, '.')));
        }
      } else {
        try (ZipFile zip = new ZipFile(module.toFile())) {
          zip.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class") && n.contains("/")
                  && !n.startsWith("META-INF/"))
              .forEach(n -> out.add(n.substring(0, n.lastIndexOf('/')).replace('/', '.')));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.removeIf(p -> !p.startsWith("narwhal"));
    return out;
  }

  /** A class file's name ({@code narwhal/a/B}, no extension) and its bytes. */
  private interface ClassVisitor {
    void visit(String internalName, java.io.InputStream bytes) throws IOException;
  }

  private static void forEachClass(Path module, ClassVisitor visitor) {
    try {
      if (Files.isDirectory(module)) {
        try (Stream<Path> files = Files.walk(module)) {
          for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
            String name = module.relativize(f).toString().replace(java.io.File.separatorChar, '/');
            if (name.startsWith("narwhal/")) {
              try (var in = Files.newInputStream(f)) {
                visitor.visit(name.substring(0, name.length() - ".class".length()), in);
              }
            }
          }
        }
      } else {
        try (ZipFile zip = new ZipFile(module.toFile())) {
          for (var e : java.util.Collections.list(zip.entries())) {
            if (e.getName().startsWith("narwhal/") && e.getName().endsWith(".class")) {
              try (var in = zip.getInputStream(e)) {
                visitor.visit(e.getName().substring(0, e.getName().length() - ".class".length()), in);
              }
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, Set<String>> packageEdges(List<Path> modules) {
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
    List<String> args = new ArrayList<>(List.of("-verbose:package", "-filter:none"));
    modules.forEach(m -> args.add(m.toString()));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = jdeps.run(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), args.toArray(String[]::new));
    assertThat(status).as("jdeps: %s", err.toString(StandardCharsets.UTF_8)).isZero();
    Map<String, Set<String>> graph = new HashMap<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
      Matcher m = EDGE.matcher(line);
      if (m.find() && !m.group(1).equals(m.group(2))) {
        graph.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
      }
    }
    return graph;
  }

  /** Strongly connected components of more than one package (Tarjan's algorithm). */
  static List<Set<String>> cycles(Map<String, Set<String>> graph) {
    return new Tarjan(graph).components();
  }

  private static final class Tarjan {
    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new TreeSet<>();
    private final List<Set<String>> found = new ArrayList<>();

    Tarjan(Map<String, Set<String>> graph) {
      this.graph = graph;
    }

    List<Set<String>> components() {
      for (String v : new TreeSet<>(graph.keySet())) {
        if (!index.containsKey(v)) {
          visit(v);
        }
      }
      return found;
    }

    private void visit(String v) {
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.push(v);
      onStack.add(v);
      for (String w : graph.getOrDefault(v, Set.of())) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        Set<String> component = new TreeSet<>();
        String w;
        do {
          w = stack.pop();
          onStack.remove(w);
          component.add(w);
        } while (!w.equals(v));
        if (component.size() > 1) {
          found.add(component);
        }
      }
    }
  }

  @Test
  void theCycleFinderFindsACycle() {
    Map<String, Set<String>> graph = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
    assertThat(cycles(graph)).containsExactly(new TreeSet<>(Set.of("a", "b", "c")));
  }
}
