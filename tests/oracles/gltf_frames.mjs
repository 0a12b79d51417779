// Loads a .glb with three.js (GLTFLoader) in Node and prints every mesh's
// vertices in world space at the given animation times.
// Usage: node gltf_frames.mjs FILE.glb T1 T2 …   (seconds)
// Prints {"meshes": {<extras.rigdMesh>: {"method": m, "frames": [[[x, y, z]…] per time]}}}.
//
// The animation runs through an AnimationMixer (LoopOnce, clamped) and
// Object3D.updateMatrixWorld; each vertex comes from Mesh.getVertexPosition
// (morph targets, and for a SkinnedMesh SkinnedMesh.applyBoneTransform), then
// the mesh's matrixWorld: method "three". three.js reads JOINTS_0/WEIGHTS_0
// only, so for a primitive that also has JOINTS_1/WEIGHTS_1 the sum over all
// eight influences is done here by the glTF formula Σ w · jointWorld ·
// inverseBind · v, with three's bone matrices (method "gltf-8").
import { readFileSync } from 'node:fs';
import { AnimationMixer, LoopOnce, Matrix4, Vector3 } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

const [file, ...timeArgs] = process.argv.slice(2);
const buf = readFileSync(file);
const data = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const times = timeArgs.map(Number);

// The JSON chunk, to find each mesh node's primitive attributes.
const jsonLen = buf.readUInt32LE(12);
const doc = JSON.parse(buf.subarray(20, 20 + jsonLen).toString('utf8'));

const gltf = await new Promise((resolve, reject) =>
  new GLTFLoader().parse(data, '', resolve, reject));

const meshes = [];
gltf.scene.traverse((o) => {
  if (o.isMesh && o.userData.rigdMesh !== undefined) meshes.push(o);
});

// An accessor's values read straight from the BIN chunk (GLTFLoader's own
// copy of WEIGHTS_0 is renormalised over its 4 slots by normalizeSkinWeights).
const binStart = 20 + jsonLen + 8;
const TYPES = { 5121: Uint8Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array };
const SIZES = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
function readAccessor(i) {
  const a = doc.accessors[i], view = doc.bufferViews[a.bufferView];
  const Type = TYPES[a.componentType], n = a.count * SIZES[a.type];
  const bytes = buf.subarray(binStart + (view.byteOffset ?? 0) + (a.byteOffset ?? 0));
  const copy = new Uint8Array(n * Type.BYTES_PER_ELEMENT);
  copy.set(bytes.subarray(0, copy.length));
  return { values: new Type(copy.buffer), getComponent(v, c) { return this.values[4 * v + c]; } };
}

// The 8-influence attributes of a skinned mesh with JOINTS_1, else null.
function eightInfluences(mesh) {
  const assoc = gltf.parser.associations.get(mesh);
  if (!assoc || assoc.meshes === undefined) return null;
  const attrs = doc.meshes[assoc.meshes].primitives[assoc.primitives ?? 0].attributes;
  if (attrs.JOINTS_1 === undefined) return null;
  const get = (k) => readAccessor(attrs[k]);
  return { j: [get('JOINTS_0'), get('JOINTS_1')], w: [get('WEIGHTS_0'), get('WEIGHTS_1')] };
}

const eight = new Map();
for (const m of meshes) if (m.isSkinnedMesh) eight.set(m, eightInfluences(m));

const mixer = new AnimationMixer(gltf.scene);
const actions = gltf.animations.map((clip) => {
  const action = mixer.clipAction(clip);
  action.setLoop(LoopOnce, 1);
  action.clampWhenFinished = true;
  return action.play();
});

const out = {};
for (const m of meshes)
  out[m.userData.rigdMesh] = { method: eight.get(m) ? 'gltf-8' : 'three', frames: [] };

const v = new Vector3(), base = new Vector3(), acc = new Vector3(), mat = new Matrix4();
for (const t of times) {
  // a clamped action that reached its end stays paused: reset it each time
  for (const a of actions) a.reset();
  mixer.setTime(t);
  gltf.scene.updateMatrixWorld(true);
  for (const m of meshes) {
    const pos = m.geometry.attributes.position;
    const e = eight.get(m);
    const verts = [];
    for (let i = 0; i < pos.count; i++) {
      if (e) {
        base.fromBufferAttribute(pos, i);
        acc.set(0, 0, 0);
        for (let s = 0; s < 2; s++)
          for (let c = 0; c < 4; c++) {
            const w = e.w[s].getComponent(i, c);
            if (w === 0) continue;
            const b = e.j[s].getComponent(i, c);
            mat.multiplyMatrices(m.skeleton.bones[b].matrixWorld, m.skeleton.boneInverses[b]);
            acc.addScaledVector(v.copy(base).applyMatrix4(mat), w);
          }
        v.copy(acc).applyMatrix4(m.matrixWorld);
      } else {
        m.getVertexPosition(i, v);
        v.applyMatrix4(m.matrixWorld);
      }
      verts.push([v.x, v.y, v.z]);
    }
    out[m.userData.rigdMesh].frames.push(verts);
  }
}
process.stdout.write(JSON.stringify({ meshes: out }) + '\n');
