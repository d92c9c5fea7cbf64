// One snapshot of a table read back through Spark's Iceberg source: the rows Spark reads there and the delete
// files Iceberg attached to each data file of that very read.
//
// This is what a Spark job reading the table at a snapshot runs on its executors, driven here in the driver
// without scheduling a job: the catalog's time-travel table (SparkCatalog.loadTable(ident, version), as
// `spark.read.option("snapshot-id", id)` resolves it), its scan builder with the same options, Iceberg's scan
// planning (planFiles: every FileScanTask with its deletes), the input partitions and the partition reader
// factory Spark's BatchScanExec would use (vectorized or row-based, as the session's settings choose), and each
// partition read to the end, so Iceberg's delete filter runs exactly as in a task. Rows become Python values
// through PySpark's own collect path (EvaluatePython.toJava, then its picklers), so the values and their types
// are the ones DataFrame.collect() gives.
//
// Compiled at first use inside Spark's driver JVM with Janino (which Spark ships for its own code generation),
// so it is written in the Java subset Janino accepts: no lambdas, raw collections with casts.
//
// read() returns one pickle of a Python tuple (column names, rows, plan):
//   column names  the table's columns at that snapshot, then the metadata columns asked for
//   rows          pyspark Rows of those columns
//   plan          one (data file location, [(delete file location, content offset or None), ...]) per scan task
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import net.razorvine.pickle.Pickler;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskGroup;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.execution.python.EvaluatePython;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnarBatch;

public class SnapshotRead {

  private final HashMap resolved = new HashMap(); // table name -> Spark3Util.CatalogAndIdentifier (parsed once)

  public SnapshotRead() {
    EvaluatePython.registerPicklers();
  }

  // metadataColumns: the metadata columns to read after the table's own, comma-separated ("" for none).
  public byte[] read(SparkSession spark, String tableName, long snapshotId, String metadataColumnList)
      throws Exception {
    String[] metadataColumns = metadataColumnList.isEmpty() ? new String[0] : metadataColumnList.split(",");
    Spark3Util.CatalogAndIdentifier name;
    synchronized (resolved) {
      name = (Spark3Util.CatalogAndIdentifier) resolved.get(tableName);
      if (name == null) {
        if (resolved.size() > 64) { // one entry per run's table: keep the map small
          resolved.clear();
        }
        name = Spark3Util.catalogAndIdentifier(spark, tableName);
        resolved.put(tableName, name);
      }
    }
    TableCatalog catalog = (TableCatalog) name.catalog();
    Table table = catalog.loadTable(name.identifier(), Long.toString(snapshotId));

    HashMap options = new HashMap();
    options.put("snapshot-id", Long.toString(snapshotId));
    ScanBuilder builder = ((SupportsRead) table).newScanBuilder(new CaseInsensitiveStringMap(options));

    StructType wanted = table.schema();
    ArrayList names = new ArrayList();
    String[] columns = wanted.fieldNames();
    for (int i = 0; i < columns.length; i++) {
      names.add(columns[i]);
    }
    if (metadataColumns.length > 0) {
      MetadataColumn[] offered = ((SupportsMetadataColumns) table).metadataColumns();
      for (int i = 0; i < metadataColumns.length; i++) {
        MetadataColumn column = null;
        for (int j = 0; j < offered.length; j++) {
          if (offered[j].name().equals(metadataColumns[i])) {
            column = offered[j];
          }
        }
        if (column == null) {
          throw new IllegalArgumentException("the table offers no metadata column " + metadataColumns[i]);
        }
        wanted = wanted.add(new StructField(column.name(), column.dataType(), column.isNullable(),
            Metadata.empty()));
        names.add(column.name());
      }
    }
    if (builder instanceof SupportsPushDownRequiredColumns) {
      ((SupportsPushDownRequiredColumns) builder).pruneColumns(wanted);
    }
    Scan scan = builder.build();
    StructType schema = scan.readSchema();
    Batch batch = scan.toBatch();
    InputPartition[] partitions = batch.planInputPartitions();
    PartitionReaderFactory factory = batch.createReaderFactory();

    StructField[] fields = schema.fields();
    DataType[] types = new DataType[fields.length];
    for (int i = 0; i < fields.length; i++) {
      types[i] = fields[i].dataType();
    }
    ArrayList plan = new ArrayList();
    for (int p = 0; p < partitions.length; p++) {
      addTasks(partitions[p], plan);
    }
    // The second half of the partitions is read on a second thread, as Spark runs tasks side by side.
    int half = (partitions.length + 1) / 2;
    Partitions second = new Partitions(factory, partitions, half, partitions.length, schema, types);
    Thread other = null;
    if (half < partitions.length) {
      other = new Thread(second, "explorer-read-back");
      other.setDaemon(true);
      other.start();
    }
    Partitions first = new Partitions(factory, partitions, 0, half, schema, types);
    first.run();
    if (other != null) {
      other.join();
    }
    rethrow(first.failure);
    rethrow(second.failure);
    ArrayList rows = first.rows;
    rows.addAll(second.rows);
    Object[] out = new Object[] {names, rows, plan};
    return new Pickler(true, false).dumps(out);
  }

  private static void rethrow(Throwable failure) throws Exception {
    if (failure instanceof Exception) {
      throw (Exception) failure;
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
  }

  // Reads partitions [from, to) to the end, each with the reader Spark would use (vectorized or row-based).
  private static final class Partitions implements Runnable {
    private final PartitionReaderFactory factory;
    private final InputPartition[] partitions;
    private final int from;
    private final int to;
    private final StructType schema;
    private final DataType[] types;
    final ArrayList rows = new ArrayList();
    Throwable failure; // rethrown by the calling thread, so a failed half never passes for an empty one

    Partitions(PartitionReaderFactory factory, InputPartition[] partitions, int from, int to, StructType schema,
        DataType[] types) {
      this.factory = factory;
      this.partitions = partitions;
      this.from = from;
      this.to = to;
      this.schema = schema;
      this.types = types;
    }

    public void run() {
      try {
        for (int p = from; p < to; p++) {
          read(partitions[p]);
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    private void read(InputPartition partition) throws Exception {
      if (factory.supportColumnarReads(partition)) {
        PartitionReader reader = factory.createColumnarReader(partition);
        try {
          while (reader.next()) {
            Iterator batchRows = ((ColumnarBatch) reader.get()).rowIterator();
            while (batchRows.hasNext()) {
              rows.add(toPython((InternalRow) batchRows.next(), schema, types));
            }
          }
        } finally {
          reader.close();
        }
      } else {
        PartitionReader reader = factory.createReader(partition);
        try {
          while (reader.next()) {
            rows.add(toPython((InternalRow) reader.get(), schema, types));
          }
        } finally {
          reader.close();
        }
      }
    }
  }

  // One row of the read schema's columns as PySpark's collect() hands it over. As Spark's own generated code does,
  // it asks isNullAt before reading a value (a columnar row's get() would read a null boolean as false) and reads
  // only the schema's columns (Iceberg's row reader appends the columns its delete filter needs, such as _pos).
  private static Object toPython(InternalRow row, StructType schema, DataType[] types) {
    Object[] values = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      values[i] = row.isNullAt(i) ? null : row.get(i, types[i]);
    }
    return EvaluatePython.toJava(new GenericInternalRow(values), schema);
  }

  // The scan tasks behind one input partition (Iceberg's SparkInputPartition keeps them; its class is not public,
  // so its public taskGroup() is called by reflection).
  private static void addTasks(InputPartition partition, List plan) throws Exception {
    Method method = partition.getClass().getMethod("taskGroup", new Class[0]);
    method.setAccessible(true);
    ScanTaskGroup group = (ScanTaskGroup) method.invoke(partition, new Object[0]);
    Collection tasks = group.tasks();
    Iterator it = tasks.iterator();
    while (it.hasNext()) {
      FileScanTask task = (FileScanTask) it.next();
      ArrayList deletes = new ArrayList();
      List attached = task.deletes();
      for (int i = 0; i < attached.size(); i++) {
        DeleteFile delete = (DeleteFile) attached.get(i);
        deletes.add(new Object[] {delete.location(), delete.contentOffset()});
      }
      plan.add(new Object[] {((ContentFile) task.file()).location(), deletes});
    }
  }
}
