// Apache Paimon 0.9.0's own Java library driving one primary-key table per run, inside the explorer's JVM.
//
// Compiled at first use with Janino (Spark ships it) against a class loader that holds Paimon's jar (a child of
// Spark's), so Spark and Iceberg never see Paimon's classes. Written in the Java subset Janino accepts: no
// lambdas, raw collections with casts. Everything it returns is one JSON text (the Python side turns it into
// the explorer's typed capture), so py4j never has to call into Paimon's non-public implementation classes.
//
// create()   a FileSystemCatalog on a local warehouse and the table (bucket=1, parquet files)
// write()    one commit: a batch write (a fresh BatchWriteBuilder) or a named stream writer kept across commits;
//            every write gets an IOManager temp directory (lookup needs one) and waits for its compaction
// compact()  write.compact(partition, bucket 0, full) for every partition, then one commit
// state()    one snapshot as Paimon stores it: its metadata, every live data file (level, sequence numbers),
//            the files the snapshot added and deleted, its changelog files, the deletion vectors a batch read
//            applies, the batch read itself and the changelog read
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowUtils;

public class PaimonSteps {

  private final HashMap runs = new HashMap(); // run id -> Run

  public static class Run {
    Catalog catalog;
    FileStoreTable table;
    String[] types;
    String ioDir;
    HashMap streams = new HashMap(); // writer name -> Object[] {StreamTableWrite, StreamTableCommit, long[]}
  }

  // ------------------------------------------------------------------------------------------ table

  public String create(String runId, String warehouse, String ioDir, String database, String name,
                       String[] columns, String[] types, String[] primaryKey, String[] partitionKeys,
                       Map options) throws Exception {
    Run run = new Run();
    run.catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)));
    run.catalog.createDatabase(database, true);
    Schema.Builder builder = Schema.newBuilder();
    for (int i = 0; i < columns.length; i++) {
      builder.column(columns[i], paimonType(types[i]));
    }
    List pk = new ArrayList();
    for (int i = 0; i < primaryKey.length; i++) pk.add(primaryKey[i]);
    List parts = new ArrayList();
    for (int i = 0; i < partitionKeys.length; i++) parts.add(partitionKeys[i]);
    builder.primaryKey(pk);
    builder.partitionKeys(parts);
    builder.options(options);
    Identifier id = Identifier.create(database, name);
    run.catalog.createTable(id, builder.build(), false);
    run.table = (FileStoreTable) run.catalog.getTable(id);
    run.types = types;
    run.ioDir = ioDir;
    runs.put(runId, run);
    return run.table.location().toString();
  }

  private static DataType paimonType(String type) {
    if (type.equals("int")) return DataTypes.INT();
    if (type.equals("long")) return DataTypes.BIGINT();
    if (type.equals("double")) return DataTypes.DOUBLE();
    if (type.equals("string")) return DataTypes.STRING();
    if (type.equals("boolean")) return DataTypes.BOOLEAN();
    if (type.equals("date")) return DataTypes.DATE();
    if (type.equals("timestamp")) return DataTypes.TIMESTAMP(6);
    throw new IllegalArgumentException("no Paimon type for " + type);
  }

  private Run run(String runId) {
    Run run = (Run) runs.get(runId);
    if (run == null) throw new IllegalStateException("no Paimon run " + runId);
    return run;
  }

  public void close(String runId) throws Exception {
    Run run = (Run) runs.remove(runId);
    if (run == null) return;
    Exception first = null;
    for (Iterator it = run.streams.values().iterator(); it.hasNext(); ) {
      Object[] stream = (Object[]) it.next();
      try {
        ((StreamTableWrite) stream[0]).close();
        ((StreamTableCommit) stream[1]).close();
      } catch (Exception e) {
        if (first == null) first = e;
      }
    }
    run.catalog.close();
    if (first != null) throw first;
  }

  // ------------------------------------------------------------------------------------------ steps

  // rows: one Object[] per record, the column values in order (dates as epoch days, timestamps as epoch
  // microseconds); kinds: "+I", "-U", "+U" or "-D" per record. writer null: a batch write.
  public void write(String runId, String writer, List rows, List kinds) throws Exception {
    Run run = run(runId);
    if (writer == null) {
      BatchWriteBuilder builder = run.table.newBatchWriteBuilder();
      BatchTableWrite write = (BatchTableWrite) builder.newWrite();
      BatchTableCommit commit = builder.newCommit();
      IOManager io = IOManager.create(run.ioDir);
      try {
        write.withIOManager(io);
        for (int i = 0; i < rows.size(); i++) {
          write.write(toRow(run, (List) rows.get(i), (String) kinds.get(i)));
        }
        commit.commit(write.prepareCommit());
      } finally {
        write.close();
        commit.close();
        io.close();
      }
      return;
    }
    Object[] stream = (Object[]) run.streams.get(writer);
    if (stream == null) {
      StreamWriteBuilder builder = run.table.newStreamWriteBuilder();
      StreamTableWrite write = (StreamTableWrite) builder.newWrite();
      write.withIOManager(IOManager.create(run.ioDir));
      stream = new Object[] {write, builder.newCommit(), new long[] {1L}};
      run.streams.put(writer, stream);
    }
    StreamTableWrite write = (StreamTableWrite) stream[0];
    StreamTableCommit commit = (StreamTableCommit) stream[1];
    long[] ident = (long[]) stream[2];
    for (int i = 0; i < rows.size(); i++) {
      write.write(toRow(run, (List) rows.get(i), (String) kinds.get(i)));
    }
    // waitCompaction: like a Flink checkpoint with lookup-wait (the default), the commit carries the
    // compaction the write triggered, so every run is deterministic.
    commit.commit(ident[0], write.prepareCommit(true, ident[0]));
    ident[0] = ident[0] + 1;
  }

  public void compact(String runId, boolean full) throws Exception {
    Run run = run(runId);
    List partitions = run.table.newSnapshotReader().partitions();
    BatchWriteBuilder builder = run.table.newBatchWriteBuilder();
    BatchTableWrite write = (BatchTableWrite) builder.newWrite();
    BatchTableCommit commit = builder.newCommit();
    IOManager io = IOManager.create(run.ioDir);
    try {
      write.withIOManager(io);
      for (int i = 0; i < partitions.size(); i++) {
        write.compact((BinaryRow) partitions.get(i), 0, full);
      }
      commit.commit(write.prepareCommit());
    } finally {
      write.close();
      commit.close();
      io.close();
    }
  }

  private static GenericRow toRow(Run run, List values, String kind) {
    GenericRow row = new GenericRow(RowKind.fromShortString(kind), values.size());
    for (int i = 0; i < values.size(); i++) {
      row.setField(i, toPaimon(run.types[i], values.get(i)));
    }
    return row;
  }

  private static Object toPaimon(String type, Object value) {
    if (value == null) return null;
    if (type.equals("int") || type.equals("date")) return new Integer(((Number) value).intValue());
    if (type.equals("long")) return new Long(((Number) value).longValue());
    if (type.equals("double")) return new Double(((Number) value).doubleValue());
    if (type.equals("string")) return BinaryString.fromString((String) value);
    if (type.equals("boolean")) return (Boolean) value;
    if (type.equals("timestamp")) return Timestamp.fromMicros(((Number) value).longValue());
    throw new IllegalArgumentException("no Paimon type for " + type);
  }

  // ------------------------------------------------------------------------------------------ reading

  public long latestSnapshot(String runId) {
    Long id = run(runId).table.snapshotManager().latestSnapshotId();
    return id == null ? 0L : id.longValue();
  }

  public String state(String runId, long snapshotId) throws Exception {
    Run run = run(runId);
    FileStoreTable table = run.table;
    Snapshot snapshot = table.snapshotManager().snapshot(snapshotId);
    RowType partitionType = table.schema().logicalPartitionType();
    StringBuilder out = new StringBuilder();
    out.append("{\"snapshot\":{\"id\":").append(snapshot.id());
    out.append(",\"commit_kind\":").append(quote(snapshot.commitKind().toString()));
    out.append(",\"commit_identifier\":").append(snapshot.commitIdentifier());
    out.append(",\"time_millis\":").append(snapshot.timeMillis());
    out.append(",\"changelog_record_count\":").append(snapshot.changelogRecordCount());
    out.append("}");
    out.append(",\"live\":");
    entries(out, table.store().newScan().withSnapshot(snapshotId).plan().files(), table, partitionType);
    out.append(",\"delta\":");
    entries(out, table.store().newScan().withSnapshot(snapshotId).withKind(ScanMode.DELTA).plan().files(),
            table, partitionType);
    // A snapshot without a changelog manifest list has no changelog: two scans saved.
    boolean hasChangelog = snapshot.changelogManifestList() != null;
    out.append(",\"changelog_files\":");
    if (hasChangelog) {
      entries(out, table.store().newScan().withSnapshot(snapshotId).withKind(ScanMode.CHANGELOG).plan().files(),
              table, partitionType);
    } else {
      out.append("[]");
    }
    // The deletion vectors a batch read of this snapshot applies, per data file: the deleted row positions
    // (only deletion-vector tables have any: a scan saved for the others).
    out.append(",\"deletion_vectors\":[");
    List splits = table.coreOptions().deletionVectorsEnabled()
        ? table.newSnapshotReader().withSnapshot(snapshotId).read().splits() : new ArrayList();
    boolean firstDv = true;
    for (int s = 0; s < splits.size(); s++) {
      DataSplit split = (DataSplit) splits.get(s);
      if (!split.deletionFiles().isPresent()) continue;
      List files = (List) split.deletionFiles().get();
      List metas = split.dataFiles();
      for (int f = 0; f < files.size(); f++) {
        DeletionFile dvFile = (DeletionFile) files.get(f);
        if (dvFile == null) continue;
        DataFileMeta meta = (DataFileMeta) metas.get(f);
        DeletionVector dv = DeletionVector.read(table.fileIO(), dvFile);
        if (!firstDv) out.append(",");
        firstDv = false;
        out.append("{\"data_file\":").append(quote(meta.fileName()));
        out.append(",\"index_file\":").append(quote(new Path(dvFile.path()).getName()));
        out.append(",\"offset\":").append(dvFile.offset()).append(",\"length\":").append(dvFile.length());
        out.append(",\"positions\":[");
        boolean firstPos = true;
        for (long p = 0; p < meta.rowCount(); p++) {
          if (dv.isDeleted(p)) {
            if (!firstPos) out.append(",");
            firstPos = false;
            out.append(p);
          }
        }
        out.append("]}");
      }
    }
    out.append("]");
    // The batch read (Paimon's own scan: for first-row and deletion-vector tables it skips level 0).
    Map at = new HashMap();
    at.put("scan.snapshot-id", String.valueOf(snapshotId));
    Table pinned = table.copy(at);
    ReadBuilder read = pinned.newReadBuilder();
    out.append(",\"rows\":");
    rows(out, read.newRead().createReader(read.newScan().plan()), table.rowType(), false);
    // The changelog this snapshot carries, read as a streaming reader reads it (with row kinds).
    out.append(",\"changelog\":");
    List changes = hasChangelog
        ? table.newSnapshotReader().withSnapshot(snapshotId).withMode(ScanMode.CHANGELOG).read().splits()
        : new ArrayList();
    if (changes.isEmpty()) {
      out.append("[]");
    } else {
      rows(out, table.newReadBuilder().newRead().createReader(changes), table.rowType(), true);
    }
    out.append("}");
    return out.toString();
  }

  private static void entries(StringBuilder out, List entries, FileStoreTable table, RowType partitionType) {
    out.append("[");
    for (int i = 0; i < entries.size(); i++) {
      ManifestEntry entry = (ManifestEntry) entries.get(i);
      DataFileMeta meta = entry.file();
      if (i > 0) out.append(",");
      out.append("{\"kind\":").append(quote(entry.kind() == FileKind.ADD ? "ADD" : "DELETE"));
      out.append(",\"name\":").append(quote(meta.fileName()));
      out.append(",\"path\":").append(quote(
          table.store().pathFactory().createDataFilePathFactory(entry.partition(), entry.bucket())
              .toPath(meta.fileName()).toString()));
      out.append(",\"bucket\":").append(entry.bucket());
      out.append(",\"level\":").append(meta.level());
      out.append(",\"min_sequence_number\":").append(meta.minSequenceNumber());
      out.append(",\"max_sequence_number\":").append(meta.maxSequenceNumber());
      out.append(",\"row_count\":").append(meta.rowCount());
      out.append(",\"source\":").append(quote(meta.fileSource().isPresent()
          ? meta.fileSource().get().toString() : ""));
      out.append(",\"partition\":[");
      for (int p = 0; p < partitionType.getFieldCount(); p++) {
        if (p > 0) out.append(",");
        value(out, InternalRowUtils.get(entry.partition(), p, partitionType.getTypeAt(p)));
      }
      out.append("]}");
    }
    out.append("]");
  }

  private static void rows(StringBuilder out, RecordReader reader, RowType type, boolean withKind)
      throws Exception {
    RecordReaderIterator it = new RecordReaderIterator(reader);
    out.append("[");
    boolean first = true;
    try {
      while (it.hasNext()) {
        InternalRow row = (InternalRow) it.next();
        if (!first) out.append(",");
        first = false;
        out.append("[");
        if (withKind) out.append(quote(row.getRowKind().shortString())).append(",");
        for (int i = 0; i < type.getFieldCount(); i++) {
          if (i > 0) out.append(",");
          value(out, InternalRowUtils.get(row, i, type.getTypeAt(i)));
        }
        out.append("]");
      }
    } finally {
      it.close();
    }
    out.append("]");
  }

  private static void value(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof BinaryString) {
      out.append(quote(value.toString()));
    } else if (value instanceof Timestamp) {
      out.append(((Timestamp) value).toMicros());
    } else if (value instanceof Double) {
      double d = ((Double) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) out.append(quote(String.valueOf(d)));
      else out.append(String.valueOf(d));
    } else {
      out.append(value.toString());
    }
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", new Object[] {new Integer(c)}));
      else out.append(c);
    }
    return out.append('"').toString();
  }
}
