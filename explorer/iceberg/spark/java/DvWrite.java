// Writes one deletion vector (a Puffin blob) for one data file, as Spark's merge-on-read writer does on a format
// v3 table: Iceberg's own BaseDVFileWriter, merging the positions of the DV the data file already had at the
// job's starting snapshot (loaded with Iceberg's BaseDeleteLoader), which the commit must then remove.
// Compiled at first use inside Spark's driver JVM with Janino, so it is written in the Java subset Janino
// accepts: no lambdas, raw collections with casts, named classes for the functions Iceberg takes.
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.DeleteWriteResult;

public class DvWrite {

  public static class Previous implements Function {
    private final PositionDeleteIndex index;

    public Previous(PositionDeleteIndex index) {
      this.index = index;
    }

    public Object apply(Object path) {
      return index;
    }
  }

  public static class Output implements Supplier {
    private final Table table;
    private final String location;

    public Output(Table table, String location) {
      this.table = table;
      this.location = location;
    }

    public Object get() {
      return table.io().newOutputFile(location);
    }
  }

  public static class Input implements Function {
    private final Table table;

    public Input(Table table) {
      this.table = table;
    }

    public Object apply(Object file) {
      DeleteFile deleteFile = (DeleteFile) file;
      return table.io().newInputFile(deleteFile.location(), deleteFile.fileSizeInBytes());
    }
  }

  /** The new DV first, then the delete files it replaces (the data file's DV at the start, if it had one). */
  public List write(Table table, DataFile dataFile, long[] positions, DeleteFile previous, String name)
      throws Exception {
    PartitionSpec spec = (PartitionSpec) table.specs().get(Integer.valueOf(dataFile.specId()));
    PositionDeleteIndex before = null;
    if (previous != null) {
      List files = new ArrayList();
      files.add(previous);
      before = new BaseDeleteLoader(new Input(table)).loadPositionDeletes(files, dataFile.location());
    }
    String location = spec.isUnpartitioned() ? table.locationProvider().newDataLocation(name)
        : table.locationProvider().newDataLocation(spec, dataFile.partition(), name);
    BaseDVFileWriter writer = new BaseDVFileWriter(new Output(table, location), new Previous(before));
    for (int i = 0; i < positions.length; i++) {
      writer.delete(dataFile.location(), positions[i], spec, dataFile.partition());
    }
    writer.close();
    DeleteWriteResult result = writer.result();
    List out = new ArrayList();
    out.addAll(result.deleteFiles());
    out.addAll(result.rewrittenDeleteFiles());
    return out;
  }
}
