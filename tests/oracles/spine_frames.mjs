// Spine's own runtime (spine-core 4.2, pinned in package.json) posing a skeleton
// headless: the oracle test_interchange_spine.py compares rigd's frames with.
//
// stdin:  {"skeleton": <Spine 4.2 JSON>, "times": [seconds…], "animation"?: name}
// stdout: {"frames": [{"time": t, "slots": {slotName: [[x, y]…]}}…]}
//         each slot's setup attachment's world vertices, in its vertex order
//         (a region's corners: bottom-left, top-left, top-right, bottom-right).
// With no animation named, the first in the document is applied (none: the
// setup pose). Regions and meshes get a whole 1×1 fake texture region, so
// their geometry is exactly what the JSON says.
import {
	MeshAttachment,
	MixBlend,
	MixDirection,
	Physics,
	RegionAttachment,
	Skeleton,
	SkeletonJson,
	TextureRegion,
} from "@esotericsoftware/spine-core";

function fakeRegion() {
	const r = new TextureRegion();
	r.u = 0, r.v = 0, r.u2 = 1, r.v2 = 1;
	r.width = r.height = r.originalWidth = r.originalHeight = 1;
	return r;
}

// An AttachmentLoader that needs no atlas.
const loader = {
	newRegionAttachment(skin, name, path) {
		const a = new RegionAttachment(name, path);
		a.region = fakeRegion();
		return a;
	},
	newMeshAttachment(skin, name, path) {
		const a = new MeshAttachment(name, path);
		a.region = fakeRegion();
		return a;
	},
	newBoundingBoxAttachment() { return null; },
	newPathAttachment() { return null; },
	newPointAttachment() { return null; },
	newClippingAttachment() { return null; },
};

function worldVertices(slot) {
	const a = slot.getAttachment();
	let flat;
	if (a instanceof RegionAttachment) {
		flat = new Array(8).fill(0);
		a.computeWorldVertices(slot, flat, 0, 2);
	} else if (a instanceof MeshAttachment) {
		flat = new Array(a.worldVerticesLength).fill(0);
		a.computeWorldVertices(slot, 0, a.worldVerticesLength, flat, 0, 2);
	} else {
		return null;
	}
	const out = [];
	for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
	return out;
}

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const req = JSON.parse(input);
const data = new SkeletonJson(loader).readSkeletonData(req.skeleton);
const anim = req.animation ? data.findAnimation(req.animation) : data.animations[0] || null;
const skeleton = new Skeleton(data);
const frames = [];
for (const time of req.times) {
	skeleton.setToSetupPose();
	if (anim) anim.apply(skeleton, time, time, false, null, 1, MixBlend.setup, MixDirection.mixIn);
	skeleton.updateWorldTransform(Physics.none);
	const slots = {};
	for (const slot of skeleton.slots) {
		const v = worldVertices(slot);
		if (v) slots[slot.data.name] = v;
	}
	frames.push({ time, slots });
}
process.stdout.write(JSON.stringify({ frames }));
