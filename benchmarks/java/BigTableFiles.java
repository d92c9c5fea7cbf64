// Commits a metadata-only Iceberg table through Iceberg's Java API, and times Iceberg Java's own planFiles() on it.
// Used by benchmarks/big_table.py over py4j (compiled there with javac against the Iceberg runtime jar): the
// per-file builder calls run inside the JVM, because a py4j round trip per builder call would take hours for
// 110,000 files. No data or delete file is written; manifests, manifest lists and metadata JSON are real.
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

public class BigTableFiles {
  // Field ids of the benchmark table (id BIGINT, user_id INT, name STRING, part INT) and of a position delete
  // file's reserved file_path / pos columns.
  private static final int ID = 1, USER = 2, NAME = 3, PART = 4;
  private static final int FILE_PATH = 2147483546, POS = 2147483545;

  private static ByteBuffer lng(long v) { return Conversions.toByteBuffer(Types.LongType.get(), v); }
  private static ByteBuffer in(int v) { return Conversions.toByteBuffer(Types.IntegerType.get(), v); }
  private static ByteBuffer str(String v) { return ByteBuffer.wrap(v.getBytes(StandardCharsets.UTF_8)); }

  // What later rounds need of every data file written so far, in primitive arrays indexed by the file's number
  // (the DataFile objects, with their metric maps, are not kept: at 1,000,000 files they filled a 4 GB heap). A
  // data file's partition is its number modulo the partitions, so the k-th file of partition p is number
  // p + k * partitions; its path, record count and partition value follow from these arrays.
  private long[] lows;
  private int[] rowCounts;
  private byte[] roundOf;
  private String root;

  private String dataPath(int number, int partitions) {
    return String.format("%s/part=%d/r%02d-%06d.parquet", root, number % partitions, roundOf[number], number);
  }

  /** Commits {@code rounds} x (one append of data files, one row delta of delete files); returns a summary. */
  public String build(Table table, int dataFiles, int deleteFiles, int partitions, int rounds, double equalityShare,
                      long seed) {
    PartitionSpec spec = table.spec();
    Random rnd = new Random(seed);
    root = table.location() + "/data";
    lows = new long[dataFiles];
    rowCounts = new int[dataFiles];
    roundOf = new byte[dataFiles];
    long nextId = 0;
    int dataDone = 0, deleteDone = 0, eqDone = 0;
    for (int r = 0; r < rounds; r++) {
      int nData = (dataFiles - dataDone) / (rounds - r);
      AppendFiles append = table.newAppend();
      for (int i = 0; i < nData; i++) {
        int part = (dataDone + i) % partitions;
        long rows = 1000 + rnd.nextInt(9000);
        long low = nextId, high = nextId + rows - 1;  // ids grow with ingestion: realistic, non-overlapping
        nextId += rows;
        int userLow = rnd.nextInt(1_000_000), userHigh = userLow + rnd.nextInt(50_000);
        String nameLow = "user-" + (char) ('a' + rnd.nextInt(13)), nameHigh = "user-" + (char) ('n' + rnd.nextInt(13));
        Map<Integer, ByteBuffer> lower = new HashMap<>(), upper = new HashMap<>();
        Map<Integer, Long> values = new HashMap<>(), nulls = new HashMap<>();
        lower.put(ID, lng(low)); upper.put(ID, lng(high));
        lower.put(USER, in(userLow)); upper.put(USER, in(userHigh));
        lower.put(NAME, str(nameLow)); upper.put(NAME, str(nameHigh));
        lower.put(PART, in(part)); upper.put(PART, in(part));
        for (int f = ID; f <= PART; f++) { values.put(f, rows); nulls.put(f, 0L); }
        DataFile file = DataFiles.builder(spec)
            .withPath(String.format("%s/part=%d/r%02d-%06d.parquet", root, part, r, dataDone + i))
            .withFormat(FileFormat.PARQUET).withFileSizeInBytes(rows * 24).withRecordCount(rows)
            .withPartitionPath("part=" + part)
            .withMetrics(new Metrics(rows, null, values, nulls, null, lower, upper)).build();
        append.appendFile(file);
        int number = dataDone + i;
        lows[number] = low; rowCounts[number] = (int) rows; roundOf[number] = (byte) r;
      }
      append.commit();
      dataDone += nData;
      int nDeletes = (deleteFiles - deleteDone) / (rounds - r);
      int nEq = (int) Math.round(nDeletes * equalityShare);
      RowDelta delta = table.newRowDelta();
      for (int j = 0; j < nDeletes; j++) {
        String path;
        DeleteFile delete;
        if (j < nEq) {  // a partition-scoped equality delete on id: half narrow (one file's ids), half wide
          int part = rnd.nextInt(partitions);
          int inPart = (dataDone - part + partitions - 1) / partitions;  // files numbered part, part + P, ... so far
          int a = part + rnd.nextInt(inPart) * partitions, b = part + rnd.nextInt(inPart) * partitions;
          long aHigh = lows[a] + rowCounts[a] - 1, bHigh = lows[b] + rowCounts[b] - 1;
          long low = j % 2 == 0 ? lows[a] : Math.min(lows[a], lows[b]);
          long high = j % 2 == 0 ? aHigh : Math.max(aHigh, bHigh);
          long keys = 1 + rnd.nextInt(100);
          Map<Integer, ByteBuffer> lo = new HashMap<>(), hi = new HashMap<>();
          lo.put(ID, lng(low)); hi.put(ID, lng(high));
          Map<Integer, Long> values = new HashMap<>(), nulls = new HashMap<>();
          values.put(ID, keys); nulls.put(ID, 0L);
          path = String.format("%s/part=%d/eq-r%02d-%05d.parquet", root, part, r, eqDone++);
          delete = FileMetadata.deleteFileBuilder(spec).ofEqualityDeletes(ID).withPath(path)
              .withFormat(FileFormat.PARQUET).withFileSizeInBytes(keys * 8 + 400).withRecordCount(keys)
              .withPartitionPath("part=" + part)
              .withMetrics(new Metrics(keys, null, values, nulls, null, lo, hi)).build();
        } else {  // a file-scoped position delete file (file_path bounds equal, as Spark writes them in v2)
          int target = rnd.nextInt(dataDone);
          long positions = 1 + rnd.nextInt(200);
          String targetPath = dataPath(target, partitions);
          Map<Integer, ByteBuffer> lo = new HashMap<>(), hi = new HashMap<>();
          lo.put(FILE_PATH, str(targetPath)); hi.put(FILE_PATH, str(targetPath));
          lo.put(POS, lng(0)); hi.put(POS, lng(rowCounts[target] - 1));
          path = String.format("%s/part=%d/pos-r%02d-%05d.parquet", root, target % partitions, r, j);
          delete = FileMetadata.deleteFileBuilder(spec).ofPositionDeletes().withPath(path)
              .withFormat(FileFormat.PARQUET).withFileSizeInBytes(positions * 16 + 400).withRecordCount(positions)
              .withPartitionPath("part=" + (target % partitions))
              .withMetrics(new Metrics(positions, null, null, null, null, lo, hi)).build();
        }
        delta.addDeletes(delete);
      }
      delta.commit();
      deleteDone += nDeletes;
    }
    return String.format("%d data files, %d delete files (%d equality), %d snapshots", dataDone, deleteDone, eqDone,
                         table.currentSnapshot().sequenceNumber());
  }

  /** Iceberg Java's planFiles() at the current snapshot: {tasks, attached delete files, nanoseconds}. */
  public long[] plan(Table table) throws IOException {
    long start = System.nanoTime(), tasks = 0, attached = 0;
    try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
      for (FileScanTask task : planned) {
        tasks++;
        attached += task.deletes().size();
      }
    }
    return new long[] {tasks, attached, System.nanoTime() - start};
  }

  /**
   * Iceberg's distributed planning (Spark's {@code SparkDistributedDataScan}: with the table's
   * {@code read.data-planning-mode} and {@code read.delete-planning-mode} set to {@code distributed}, executors
   * read the data and delete manifests), every task's deletes consumed: {tasks, attached delete files, nanoseconds}.
   */
  public long[] planDistributed(org.apache.spark.sql.SparkSession spark, Table table) throws IOException {
    long start = System.nanoTime(), tasks = 0, attached = 0;
    try (CloseableIterable<org.apache.iceberg.ScanTask> planned = distributedScan(spark, table).planFiles()) {
      for (org.apache.iceberg.ScanTask t : planned) {
        tasks++;
        attached += ((FileScanTask) t).deletes().size();
      }
    }
    return new long[] {tasks, attached, System.nanoTime() - start};
  }

  private static org.apache.iceberg.BatchScan distributedScan(org.apache.spark.sql.SparkSession spark, Table table) {
    return new org.apache.iceberg.SparkDistributedDataScan(
        spark, table, new org.apache.iceberg.spark.SparkReadConf(spark, table, new HashMap<>()));
  }

  /** writePlan of the distributed planning. */
  public long writeDistributedPlan(org.apache.spark.sql.SparkSession spark, Table table, String out)
      throws IOException {
    return writeTasks(distributedScan(spark, table).planFiles(), out);
  }

  /** The attached delete files per data file, by file name, written to {@code out} ("data\tdel,del" lines). */
  public long writePlan(Table table, String out) throws IOException {
    return writeTasks(table.newScan().planFiles(), out);
  }

  private static long writeTasks(CloseableIterable<? extends org.apache.iceberg.ScanTask> tasks, String out)
      throws IOException {
    long lines = 0;
    try (CloseableIterable<? extends org.apache.iceberg.ScanTask> planned = tasks;
         BufferedWriter w = Files.newBufferedWriter(Paths.get(out), StandardCharsets.UTF_8)) {
      for (org.apache.iceberg.ScanTask t : planned) {
        FileScanTask task = (FileScanTask) t;
        TreeSet<String> names = new TreeSet<>();
        for (DeleteFile d : task.deletes()) names.add(name(d.location()));
        w.write(name(task.file().location()) + "\t" + String.join(",", names) + "\n");
        lines++;
      }
    }
    return lines;
  }

  private static String name(String location) { return location.substring(location.lastIndexOf('/') + 1); }
}
